import { describe, expect, it } from 'vitest';
import { PLAN_NAMES, PLANS } from '../../src/sandbox/index.js';
import { UNLIMITED_PER_MINUTE } from '../../src/sandbox/rate-limiter.js';
import { CLOCK_START_MS, FakeClock, call, rateLimitOf, record } from './helpers.js';
import { testSandbox } from '../helpers/sandbox.js';

const START_S = CLOCK_START_MS / 1000;

describe('rate limit headers', () => {
  it.each([
    ['200 list', 'GET', '/pets', {}, 200],
    ['200 get', 'GET', '/pets/1', {}, 200],
    ['201 create', 'POST', '/pets', { body: '{"name":"A","categoryId":1}' }, 201],
    ['400 create', 'POST', '/pets', { body: '{}' }, 400],
    ['400 list', 'GET', '/pets?limit=0', {}, 400],
    ['401', 'GET', '/pets', { key: null }, 401],
    ['404 pet', 'GET', '/pets/99', {}, 404],
    ['404 path', 'GET', '/nowhere', {}, 404],
    ['405', 'DELETE', '/pets', {}, 405],
  ] as const)('are on a %s response', async (_case, method, path, options, status) => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ seed: 1, now: clock.now });
    const reply = await call(sandbox, method, path, options);
    expect(reply.status).toBe(status);
    expect(rateLimitOf(reply)).toEqual({ limit: 60, remaining: 59, reset: START_S + 60 });
  });

  it.each(PLAN_NAMES)('are on the answers of plan %s, 401 and 404 included', async (plan) => {
    const sandbox = await testSandbox({ plan });
    for (const [path, key] of [
      ['/pets', undefined],
      ['/pets', null],
      ['/pets/99', undefined],
    ] as const) {
      const reply = await call(sandbox, 'GET', path, { key });
      expect(rateLimitOf(reply).limit, `${plan} ${path} ${key}`).toBeGreaterThan(0);
    }
  });

  it('count down Remaining and keep Reset at the start of the window plus 60 s', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 3, now: clock.now });
    const first = await call(sandbox, 'GET', '/pets');
    clock.advanceSeconds(10);
    const second = await call(sandbox, 'GET', '/pets');
    expect(rateLimitOf(first)).toEqual({ limit: 3, remaining: 2, reset: START_S + 60 });
    expect(rateLimitOf(second)).toEqual({ limit: 3, remaining: 1, reset: START_S + 60 });
  });

  it('round a reset that falls inside a second up', async () => {
    const clock = new FakeClock(CLOCK_START_MS + 250);
    const sandbox = await testSandbox({ now: clock.now });
    expect(rateLimitOf(await call(sandbox, 'GET', '/pets')).reset).toBe(START_S + 61);
  });

  it('report the day window once it has fewer requests left than the minute window', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 10, rpd: 12, now: clock.now });
    for (let i = 0; i < 10; i++) await call(sandbox, 'GET', '/pets');
    clock.advanceSeconds(60);
    const reply = await call(sandbox, 'GET', '/pets');
    expect(reply.status).toBe(200);
    expect(rateLimitOf(reply)).toEqual({ limit: 12, remaining: 1, reset: START_S + 86_400 });
  });

  it('follow the plan and the rpm and rpd overrides', async () => {
    const pro = await testSandbox({ plan: 'pro' });
    expect([pro.rpm, pro.rpd]).toEqual([300, 10_000]);
    expect(rateLimitOf(await call(pro, 'GET', '/pets')).limit).toBe(300);
    const business = await testSandbox({ plan: 'business', rpd: 50 });
    expect([business.rpm, business.rpd]).toEqual([1000, 50]);
    expect(rateLimitOf(await call(business, 'GET', '/pets')).limit).toBe(50);
    const free = await testSandbox();
    expect([free.plan, free.rpm, free.rpd]).toEqual(['free', 60, 1000]);
  });

  it('are the plans of the spec', () => {
    expect(PLANS).toEqual({
      free: { rpm: 60, rpd: 1000 },
      pro: { rpm: 300, rpd: 10_000 },
      business: { rpm: 1000, rpd: 100_000 },
      unlimited: { rpm: null, rpd: null },
    });
  });
});

describe('per-minute limit', () => {
  it('answers 429 with Retry-After and an Error body once the minute is used up', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 3, now: clock.now });
    for (let i = 0; i < 3; i++) expect((await call(sandbox, 'GET', '/pets')).status).toBe(200);
    clock.advanceSeconds(20.3);
    const limited = await call(sandbox, 'GET', '/pets');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('40');
    expect(rateLimitOf(limited)).toEqual({ limit: 3, remaining: 0, reset: START_S + 60 });
    expect(limited.body).toEqual({
      code: 'rate_limited',
      message: expect.stringMatching(/3 requests per minute.*retry after 40 seconds/),
      status: 429,
    });
  });

  it('does not execute a request over the limit', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 1, now: clock.now });
    await call(sandbox, 'GET', '/pets');
    const limited = await call(sandbox, 'POST', '/pets', { body: '{"name":"A","categoryId":1}' });
    expect(limited.status).toBe(429);
    expect(sandbox.pets()).toEqual([]);
  });

  it('keeps refusing until the window resets, then serves a fresh window', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 3, now: clock.now });
    for (let i = 0; i < 3; i++) await call(sandbox, 'GET', '/pets');
    expect((await call(sandbox, 'GET', '/pets')).headers.get('retry-after')).toBe('60');
    clock.advanceSeconds(59.5);
    const stillLimited = await call(sandbox, 'GET', '/pets');
    expect(stillLimited.status).toBe(429);
    expect(stillLimited.headers.get('retry-after')).toBe('1');
    expect(record(stillLimited).message).toContain('cooling down');

    clock.advanceSeconds(0.5);
    const fresh = await call(sandbox, 'GET', '/pets');
    expect(fresh.status).toBe(200);
    expect(rateLimitOf(fresh)).toEqual({ limit: 3, remaining: 2, reset: START_S + 120 });
  });

  it('counts requests that fail, but not requests refused for the limit', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 2, now: clock.now });
    expect((await call(sandbox, 'GET', '/pets/42')).status).toBe(404);
    expect((await call(sandbox, 'POST', '/pets', { body: '{}' })).status).toBe(400);
    expect((await call(sandbox, 'GET', '/pets')).status).toBe(429);
    clock.advanceSeconds(60);
    expect(rateLimitOf(await call(sandbox, 'GET', '/pets')).remaining).toBe(1);
  });

  it('lets a client that waits exactly Retry-After through', async () => {
    const clock = new FakeClock(CLOCK_START_MS + 100);
    const sandbox = await testSandbox({ rpm: 1, now: clock.now });
    await call(sandbox, 'GET', '/pets');
    clock.advanceSeconds(0.2);
    const limited = await call(sandbox, 'GET', '/pets');
    clock.advanceSeconds(Number(limited.headers.get('retry-after')));
    expect((await call(sandbox, 'GET', '/pets')).status).toBe(200);
  });
});

describe('per-day limit', () => {
  it('answers 429 until the day window resets, reporting the day window', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 100, rpd: 5, banAfter: 1000, now: clock.now });
    for (let i = 0; i < 5; i++) {
      expect((await call(sandbox, 'GET', '/pets')).status).toBe(200);
      clock.advanceSeconds(3600);
    }
    const limited = await call(sandbox, 'GET', '/pets');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe(String(86_400 - 5 * 3600));
    expect(rateLimitOf(limited)).toEqual({ limit: 5, remaining: 0, reset: START_S + 86_400 });
    expect(record(limited).message).toContain('5 requests per day');

    clock.advanceSeconds(86_400 - 5 * 3600 - 1);
    expect((await call(sandbox, 'GET', '/pets')).status).toBe(429);
    clock.advanceSeconds(1);
    const nextDay = await call(sandbox, 'GET', '/pets');
    expect(nextDay.status).toBe(200);
    expect(rateLimitOf(nextDay)).toMatchObject({ limit: 5, remaining: 4 });
  });
});

describe('cooldown and ban', () => {
  it('bans a key after banAfter requests during a cooldown, then lifts the ban', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 1, banAfter: 3, banSeconds: 600, now: clock.now });
    expect((await call(sandbox, 'GET', '/pets')).status).toBe(200);
    const first429 = await call(sandbox, 'GET', '/pets');
    expect(record(first429).code).toBe('rate_limited');
    for (const strike of [1, 2]) {
      const reply = await call(sandbox, 'GET', '/pets');
      expect(record(reply).code).toBe('rate_limited');
      expect(record(reply).message).toContain(`(${strike} of 3)`);
    }
    clock.advanceSeconds(10);
    const banned = await call(sandbox, 'GET', '/pets');
    expect(banned.status).toBe(429);
    expect(banned.headers.get('retry-after')).toBe('600');
    expect(banned.body).toEqual({
      code: 'key_banned',
      message: expect.stringMatching(/temporarily banned.*during a rate-limit cooldown/),
      status: 429,
    });
    expect(rateLimitOf(banned)).toEqual({ limit: 1, remaining: 0, reset: START_S + 610 });

    clock.advanceSeconds(61);
    const stillBanned = await call(sandbox, 'GET', '/pets');
    expect(record(stillBanned).code).toBe('key_banned');
    expect(stillBanned.headers.get('retry-after')).toBe('539');
    expect(rateLimitOf(stillBanned).remaining).toBe(0);

    clock.advanceSeconds(539);
    const afterBan = await call(sandbox, 'GET', '/pets');
    expect(afterBan.status).toBe(200);
    expect(sandbox.requestLog.map((entry) => entry.status)).toEqual([
      200, 429, 429, 429, 429, 429, 200,
    ]);
  });

  it('forgets strikes when a cooldown ends without a ban', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 1, banAfter: 3, now: clock.now });
    const cycle = async () => {
      expect((await call(sandbox, 'GET', '/pets')).status).toBe(200);
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push(record(await call(sandbox, 'GET', '/pets')).code);
      clock.advanceSeconds(60);
      return codes;
    };
    expect(await cycle()).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
    expect(await cycle()).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
  });

  it('bans only the offending client: the key and anonymous callers are separate', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ rpm: 1, banAfter: 1, now: clock.now });
    await call(sandbox, 'GET', '/pets');
    await call(sandbox, 'GET', '/pets');
    expect(record(await call(sandbox, 'GET', '/pets')).code).toBe('key_banned');
    const anonymous = await call(sandbox, 'GET', '/pets', { key: null });
    expect(anonymous.status).toBe(401);
    expect(rateLimitOf(anonymous)).toMatchObject({ limit: 60, remaining: 59 });
  });
});

describe('anonymous requests', () => {
  it('are limited per address with the free plan, apart from the key', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ plan: 'unlimited', now: clock.now });
    for (let i = 0; i < 60; i++) {
      expect((await call(sandbox, 'GET', '/pets', { key: 'wrong' })).status).toBe(401);
    }
    const limited = await call(sandbox, 'GET', '/pets', { key: null });
    expect(limited.status).toBe(429);
    expect(rateLimitOf(limited)).toEqual({ limit: 60, remaining: 0, reset: START_S + 60 });
    const withKey = await call(sandbox, 'GET', '/pets');
    expect(withKey.status).toBe(200);
  });
});

describe('unlimited plan', () => {
  it('never answers 429, and states a very large limit on every answer', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ plan: 'unlimited', banAfter: 1, now: clock.now });
    expect([sandbox.rpm, sandbox.rpd]).toEqual([null, null]);
    const statuses = new Set<number>();
    for (let i = 1; i <= 1001; i++) {
      const reply = await call(sandbox, 'GET', '/pets?limit=1');
      statuses.add(reply.status);
      expect(rateLimitOf(reply)).toEqual({
        limit: UNLIMITED_PER_MINUTE,
        remaining: UNLIMITED_PER_MINUTE - i,
        reset: START_S + 60,
      });
    }
    expect([...statuses]).toEqual([200]);
  });

  it('applies an rpm override on its own, leaving the day unlimited', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ plan: 'unlimited', rpm: 2, now: clock.now });
    expect([sandbox.rpm, sandbox.rpd]).toEqual([2, null]);
    await call(sandbox, 'GET', '/pets');
    expect(rateLimitOf(await call(sandbox, 'GET', '/pets'))).toMatchObject({ remaining: 0 });
    expect((await call(sandbox, 'GET', '/pets')).status).toBe(429);
  });
});
