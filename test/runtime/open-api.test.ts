// deps.api's one gate per key: a second call for the key shares it, and may not change what
// the first asked (its countdown, its trace, its timeout), which the gate keeps.
import { describe, expect, it } from 'vitest';
import { hostOf } from '../../src/config/base-url.js';
import type { HttpSettings } from '../../src/cmd/shared/deps.js';
import { systemClock } from '../../src/core/clock.js';
import { Secrets } from '../../src/core/redact.js';
import { ApiOpener } from '../../src/runtime/open-api.js';
import { tempConfigDir } from '../helpers/config-dir.js';

const BASE = 'http://127.0.0.1:9/v1';
const target = (apiKey: string) => ({
  profile: 'test',
  baseUrl: BASE,
  host: hostOf(BASE),
  apiKey,
  keySource: 'config' as const,
  protected: false,
});

describe('ApiOpener', () => {
  it('gives a second call for a key the same gate when it asks the same', async () => {
    const opener = new ApiOpener({ PETS_CONFIG_DIR: tempConfigDir() }, systemClock, new Secrets());
    const settings: HttpSettings = { timeoutMs: 1000, batch: false, wait: async () => {} };
    const first = await opener.open(target('key_aaaaaaaaaaaaaaaa'), settings);
    const again = await opener.open(target('key_aaaaaaaaaaaaaaaa'), { ...settings });
    const other = await opener.open(target('key_bbbbbbbbbbbbbbbb'), { ...settings, timeoutMs: 5 });
    expect(again.gate).toBe(first.gate);
    expect(other.gate).not.toBe(first.gate);
    await opener.close(true);
  });

  it.each<[string, Partial<HttpSettings>]>([
    ['wait', { wait: async () => {} }],
    ['trace', { trace: () => {} }],
    ['timeout', { timeoutMs: 2000 }],
    ['batch', { batch: true }],
  ])('refuses a second call for a key that asks another %s', async (_name, change) => {
    const opener = new ApiOpener({ PETS_CONFIG_DIR: tempConfigDir() }, systemClock, new Secrets());
    const settings: HttpSettings = { timeoutMs: 1000, batch: false, wait: async () => {} };
    await opener.open(target('key_aaaaaaaaaaaaaaaa'), settings);
    await expect(
      opener.open(target('key_aaaaaaaaaaaaaaaa'), { ...settings, ...change }),
    ).rejects.toThrow(/opened twice in a run, with other settings/);
    await opener.close(true);
  });
});
