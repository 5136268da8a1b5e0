import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConfigStore } from '../../src/config/store.js';
import { ConfigFileError } from '../../src/core/errors.js';
import { tempConfigDir } from '../helpers/config-dir.js';

describe('config store', () => {
  it('starts with production and staging, production active, nothing written yet', () => {
    const store = openConfigStore(tempConfigDir());
    expect(store.read()).toEqual({
      activeProfile: 'production',
      profiles: { production: {}, staging: {} },
    });
  });

  it('creates its folder 0700 and writes the file 0600', async () => {
    const dir = tempConfigDir();
    const store = openConfigStore(dir);
    await store.update((data) => {
      data.profiles.production = { apiKey: 'sk_live_secret_value' };
    });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('tightens a config file that was left world-readable', async () => {
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{}', { mode: 0o644 });
    const store = openConfigStore(dir);
    await store.update((data) => {
      data.activeProfile = 'staging';
    });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['broken JSON', '{"profiles":{"production":{"apiKey":"sk_live_CANARY_1234"}'],
    ['the wrong shape', '{"profiles":{"production":"sk_live_CANARY_1234"}}'],
    ['a bare string', '"sk_live_CANARY_1234"'],
  ])('reports a config file holding %s by path only, never its content', (_case, content) => {
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), content);
    let error: unknown;
    try {
      openConfigStore(dir).read();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigFileError);
    const text = `${(error as Error).message} ${(error as ConfigFileError).hint}`;
    expect(text).toContain(join(dir, 'config.json'));
    expect(text).not.toContain('CANARY');
  });

  it('loses no update when several writers run at once', async () => {
    const dir = tempConfigDir();
    const stores = Array.from({ length: 8 }, () => openConfigStore(dir));
    await Promise.all(
      stores.map((store, i) =>
        store.update((data) => {
          data.profiles[`p${i}`] = { baseUrl: `https://p${i}.example.com/v1` };
        }),
      ),
    );
    const names = Object.keys(openConfigStore(dir).read().profiles).sort();
    expect(names).toEqual([
      'p0',
      'p1',
      'p2',
      'p3',
      'p4',
      'p5',
      'p6',
      'p7',
      'production',
      'staging',
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.p3.baseUrl).toBe(
      'https://p3.example.com/v1',
    );
  });
});
