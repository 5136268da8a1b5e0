import { afterEach, describe, expect, it } from 'vitest';
import { checkRateStore } from '../../src/config/rate-store.js';
import { decideSend, type GateState } from '../../src/ratelimit/policy.js';
import { openRedisStore, redisKey, StateForgotten } from '../../src/ratelimit/redis-store.js';
import { redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.js';

// The rate store that machines share, against a real redis-server: changes from separate
// connections (machines) are atomic, and a lost store fails each change rather than guessing.

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function redis(): Promise<RedisServer> {
  const server = await startRedis();
  closers.push(() => server.close());
  return server;
}

const MACHINES = 4;
const TRIES_EACH = 120;
const BUDGET = 150;

describe.skipIf(redisMissing)('the rate state in Redis', () => {
  it(`${MACHINES} machines reserving at once take exactly Remaining (${BUDGET}), and lose no reservation`, async () => {
    const server = await redis();
    const address = checkRateStore(server.url(), 'the test', 'environment');
    const stores = await Promise.all(
      Array.from({ length: MACHINES }, () => openRedisStore(address, 'shared', (text) => text)),
    );
    closers.push(async () => {
      await Promise.all(stores.map((store) => store.close?.()));
    });
    await stores[0]!.update(() => ({
      state: {
        consecutive429s: 0,
        quota: { limit: BUDGET, remaining: BUDGET, resetAtMs: Date.now() + 600_000 },
      },
      result: undefined,
    }));

    // Every machine asks all at once: its changes go out together, and meet the others'.
    const went = await Promise.all(
      stores.map(async (store, machine) => {
        const decisions = await Promise.all(
          Array.from({ length: TRIES_EACH }, (_, i) =>
            store.update((state) => {
              const now = Date.now();
              const decision = decideSend(state, now, `m${machine}.${i}`, now + 600_000);
              return { state: decision.state, result: decision.go };
            }),
          ),
        );
        return decisions.filter(Boolean).length;
      }),
    );
    expect(went.reduce((sum, n) => sum + n, 0)).toBe(BUDGET);
    const fresh = await openRedisStore(address, 'shared', (text) => text);
    const state = fresh.read();
    await fresh.close?.();
    expect(state.quota?.remaining).toBe(0);
    expect(Object.keys(state.inFlight ?? {})).toHaveLength(BUDGET);
  });

  it('keeps the state under a key named by origin and key fingerprint, never the key', () => {
    expect(redisKey('0123456789abcdef')).toBe('pets:ratelimit:0123456789abcdef');
  });

  it('a store lost between changes fails the next change, naming what the client met', async () => {
    const server = await redis();
    const store = await openRedisStore(
      checkRateStore(server.url(), 'the test', 'environment'),
      'lost',
      (text) => text,
    );
    await store.update((state) => ({ state, result: undefined }));
    await server.kill();
    await expect(
      store.update((state) => ({ state: { ...state, consecutive429s: 1 }, result: undefined })),
    ).rejects.toThrow(/^(the connection was closed|.*ECONNRESET)/);
    await store.close?.();
  });
});

describe.skipIf(redisMissing)('a state in Redis that pets never wrote', () => {
  it('a time of 1e300 sets the state aside, said once, and the next change replaces it', async () => {
    const server = await redis();
    const address = checkRateStore(server.url(), 'the test', 'environment');
    const key = redisKey('planted');
    expect(await server.command(`SET ${key} '{"generation":"g","cooldownUntilMs":1e300}'`)).toBe(
      '+OK',
    );
    const warnings: string[] = [];
    const store = await openRedisStore(address, 'planted', (text) => text, {
      warn: (line) => warnings.push(line),
    });
    closers.push(async () => store.close?.());
    expect(store.read()).toEqual({});
    await store.update((state) => ({ state: { ...state, ended: 1 }, result: undefined }));
    expect(store.read()).toEqual({ ended: 1 });
    expect(warnings).toEqual([
      expect.stringMatching(
        /^the rate-limit state pets:ratelimit:planted in .* was set aside \(cooldownUntilMs 1e\+300,/,
      ),
    ]);
  });
});

describe.skipIf(redisMissing)('a store that forgets the key while the connection stays up', () => {
  const DAY_MS = 24 * 3600_000;
  // Any change that writes: a field the state keeps, counted up.
  const bump = (state: GateState) => ({
    state: { ...state, crowdedUntilMs: (state.crowdedUntilMs ?? 0) + 1 },
    result: undefined,
  });

  async function opened(now?: () => number) {
    const server = await redis();
    const address = checkRateStore(server.url(), 'the test', 'environment');
    const open = () => openRedisStore(address, 'forgot', (text) => text, now ? { now } : {});
    return { server, open };
  }

  it('a fresh key at the first open is normal: the first change creates it', async () => {
    const { server, open } = await opened();
    const store = await open();
    await store.update(bump);
    await store.close?.();
    expect(await server.command(`EXISTS ${redisKey('forgot')}`)).toBe(':1');
  });

  it.each(['FLUSHALL', 'FLUSHDB', `DEL ${redisKey('forgot')}`])(
    'a state written, then gone (%s): the next change fails, and writes nothing',
    async (wipe) => {
      const { server, open } = await opened();
      const store = await open();
      await store.update(bump);
      expect(await server.command(wipe)).toMatch(/^(\+OK|:1)$/);
      await expect(store.update(bump)).rejects.toBeInstanceOf(StateForgotten);
      // A change that only reads (a wait) finds it gone as well.
      await expect(store.update((state) => ({ state, result: 0 }))).rejects.toThrow(
        /no longer holds this key's state/,
      );
      await store.close?.();
      expect(await server.command(`EXISTS ${redisKey('forgot')}`)).toBe(':0');
    },
  );

  it('a state only read at the open, then gone: the first change fails', async () => {
    const { server, open } = await opened();
    const first = await open();
    await first.update(bump);
    await first.close?.();
    const second = await open();
    expect(second.read().crowdedUntilMs).toBe(1);
    await server.command('FLUSHALL');
    await expect(second.update(bump)).rejects.toBeInstanceOf(StateForgotten);
    await second.close?.();
  });

  it('a state that another process wrote, then gone: the change fails', async () => {
    const { server, open } = await opened();
    const [a, b] = [await open(), await open()];
    await a.update(bump);
    await b.update(bump); // meets a's state: learns it and its time to live
    await a.update(bump);
    await server.command('FLUSHALL');
    await expect(b.update(bump)).rejects.toBeInstanceOf(StateForgotten);
    await Promise.all([a.close?.(), b.close?.()]);
  });

  it('a state wiped, then created afresh by a process that never saw it: the next change fails, and writes nothing', async () => {
    const { server, open } = await opened();
    const a = await open();
    await a.update(bump);
    await a.update(bump); // a's state: crowdedUntilMs 2
    await server.command('FLUSHALL');
    const b = await open(); // a machine starting just after the wipe
    expect(b.read().crowdedUntilMs).toBeUndefined();
    await b.update(bump); // creates the key afresh: crowdedUntilMs 1, without a's claims
    // To a, this looks like a newer state (a conflict), not a missing key.
    await expect(a.update(bump)).rejects.toBeInstanceOf(StateForgotten);
    await expect(a.update((state) => ({ state, result: 0 }))).rejects.toBeInstanceOf(
      StateForgotten,
    );
    const fresh = await open();
    expect(fresh.read().crowdedUntilMs).toBe(1); // b's state, untouched by a
    // b, which created this generation, goes on.
    await b.update(bump);
    expect(b.read().crowdedUntilMs).toBe(2);
    await Promise.all([a.close?.(), b.close?.(), fresh.close?.()]);
  });

  it('fresh processes racing to create the key all go on (no false loss), and count every change', async () => {
    const { open } = await opened();
    const racers = await Promise.all(Array.from({ length: 4 }, () => open()));
    await Promise.all(racers.map((store) => Promise.all([store.update(bump), store.update(bump)])));
    await Promise.all(racers.map((store) => store.update(bump)));
    const fresh = await open();
    expect(fresh.read().crowdedUntilMs).toBe(12);
    await Promise.all([...racers, fresh].map((store) => store.close?.()));
  });

  it('a state expired past its two days, then created afresh by another process: adopted, not lost', async () => {
    let now = 1_000;
    const { server, open } = await opened(() => now);
    const a = await open();
    await a.update(bump);
    now += 2 * DAY_MS;
    await server.command(`DEL ${redisKey('forgot')}`); // what its expiry does, two days on
    const b = await open();
    await b.update(bump);
    await a.update(bump);
    expect(a.read().crowdedUntilMs).toBe(2);
    await Promise.all([a.close?.(), b.close?.()]);
  });

  it('a state gone past the two days it is kept (expired, no one using it) starts afresh', async () => {
    let now = 1_000;
    const { server, open } = await opened(() => now);
    const store = await open();
    await store.update(bump);
    now += 2 * DAY_MS - 120_000;
    await server.command(`DEL ${redisKey('forgot')}`);
    await expect(store.update(bump)).rejects.toBeInstanceOf(StateForgotten);

    const again = await open();
    await again.update(bump);
    now += 2 * DAY_MS;
    await server.command(`DEL ${redisKey('forgot')}`); // what its expiry does, two days on
    await again.update(bump);
    expect(again.read().crowdedUntilMs).toBe(1);
    await Promise.all([store.close?.(), again.close?.()]);
  });
});

describe('the rate store URL', () => {
  it('is shown without its password, which is kept to redact', () => {
    const address = checkRateStore('redis://ci:p%40ss-word-1@redis.internal:6380/2', 'X', 'config');
    expect(address.shown).toBe('redis://ci@redis.internal:6380/2');
    expect(address.password).toBe('p@ss-word-1');
    expect(checkRateStore('rediss://h', 'X', 'config').shown).toBe('rediss://h');
  });

  it('refuses what is not a Redis URL, without quoting it', () => {
    for (const bad of ['http://h:6379', 'not a url', 'redis://h:6379/x', 'redis://h/1?tls=1']) {
      expect(() => checkRateStore(bad, 'PETS_RATE_STORE', 'environment')).toThrow(
        /^PETS_RATE_STORE (is|has|names)/,
      );
    }
    try {
      checkRateStore('ftp://u:secret-pass-1@h', 'PETS_RATE_STORE', 'environment');
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });
});
