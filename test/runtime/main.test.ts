import { describe, expect, it } from 'vitest';
import type { PetsApi } from '../../src/api/client.js';
import type { Deps } from '../../src/cmd/shared/deps.js';
import { main } from '../../src/runtime/main.js';
import { systemClock } from '../../src/core/clock.js';
import { Secrets } from '../../src/core/redact.js';
import { openConfigStore } from '../../src/config/store.js';
import { tempConfigDir } from '../helpers/config-dir.js';
import { captureIo } from '../helpers/io.js';
import { noPerson } from '../helpers/prompter.js';

const KEY = 'sk_live_CRASH_CANARY_0001';

/** Deps whose API client fails the way a bug would, with the key in its message. */
function crashingDeps() {
  const io = captureIo();
  const config = openConfigStore(tempConfigDir());
  const api = {
    listPets: () =>
      Promise.reject(new TypeError(`cannot read properties of undefined (key ${KEY})`)),
  } as unknown as PetsApi;
  const deps: Deps = {
    io,
    env: { PETS_BASE_URL: 'https://api.example.com/v1', PETS_API_KEY: KEY },
    clock: systemClock,
    signal: new AbortController().signal,
    prompts: noPerson(),
    config: async () => config,
    api: async () => ({
      api,
      gate: { snapshot: {}, expect: () => false, sentCount: 0, storeView: {} },
    }),
    secrets: new Secrets(),
    close: async () => {},
  };
  return { deps, io };
}

describe('main', () => {
  it('turns a crash inside a command into exit 1 with no stack and no key', async () => {
    const { deps, io } = crashingDeps();
    expect(await main(['node', 'pets', 'list'], deps)).toBe(1);
    expect(io.err()).toContain(
      'pets failed unexpectedly: cannot read properties of undefined (key ***)',
    );
    expect(io.err()).toContain('--debug');
    expect(io.err()).not.toContain('CANARY');
    expect(io.err()).not.toMatch(/\n\s+at /);
  });

  it('shows the stack with --debug, still without the key', async () => {
    const { deps, io } = crashingDeps();
    expect(await main(['node', 'pets', 'list', '--debug'], deps)).toBe(1);
    expect(io.err()).toMatch(/\n\s+at /);
    expect(io.err()).not.toContain('CANARY');
  });

  it('prints help on stdout with exit 0, and on stderr with exit 2 when no command is given', async () => {
    const help = crashingDeps();
    expect(await main(['node', 'pets', '--help'], help.deps)).toBe(0);
    expect(help.io.out()).toContain('Usage: pets');
    const bare = crashingDeps();
    expect(await main(['node', 'pets'], bare.deps)).toBe(2);
    expect(bare.io.err()).toContain('Usage: pets');
    expect(bare.io.out()).toBe('');
  });

  it('exits 130 when the run is interrupted', async () => {
    const { deps, io } = crashingDeps();
    const stop = new AbortController();
    const api = {
      listPets: (_q: unknown, options: { signal: AbortSignal }) =>
        new Promise((_resolve, reject) =>
          options.signal.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    } as unknown as PetsApi;
    const pending = main(['node', 'pets', 'list'], {
      ...deps,
      signal: stop.signal,
      api: async () => ({
        api,
        gate: { snapshot: {}, expect: () => false, sentCount: 0, storeView: {} },
      }),
    });
    setTimeout(() => stop.abort(), 20);
    expect(await pending).toBe(130);
    expect(io.err()).toContain('interrupted');
  });
});
