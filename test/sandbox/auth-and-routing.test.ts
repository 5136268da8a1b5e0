import { describe, expect, it } from 'vitest';
import { CLOCK_START_MS, FakeClock, call, record } from './helpers.js';
import { testSandbox } from '../helpers/sandbox.js';

describe('authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong key', { key: 'sandbox_wrong-key-0123' }],
    ['the Basic scheme', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }],
    ['an empty bearer token', { headers: { authorization: 'Bearer ' } }],
  ])('answers 401 with an Error body to %s', async (_case, options) => {
    const sandbox = await testSandbox({ seed: 1 });
    for (const [method, path] of [
      ['GET', '/pets'],
      ['POST', '/pets'],
      ['GET', '/pets/1'],
    ] as const) {
      const reply = await call(sandbox, method, path, { key: null, ...options });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({
        code: 'unauthorized',
        message: expect.stringContaining('Authorization: Bearer <API_KEY>'),
        status: 401,
      });
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    expect(sandbox.pets()).toHaveLength(1);
  });

  it('never echoes the key that was sent', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'GET', '/pets', { key: 'secret-looking-key-xyz' });
    expect(reply.status).toBe(401);
    expect(reply.text).not.toContain('secret-looking-key-xyz');
    expect(reply.text).not.toContain(sandbox.key);
  });

  it('accepts the bearer scheme in any case', async () => {
    const sandbox = await testSandbox({ key: 'my-test-key' });
    const reply = await call(sandbox, 'GET', '/pets', {
      key: null,
      headers: { authorization: 'bearer my-test-key' },
    });
    expect(reply.status).toBe(200);
  });

  it('makes a random sandbox_ key per sandbox unless one is given', async () => {
    const first = await testSandbox();
    const second = await testSandbox();
    expect(first.key).toMatch(/^sandbox_[0-9a-f]{32}$/);
    expect(second.key).toMatch(/^sandbox_[0-9a-f]{32}$/);
    expect(first.key).not.toBe(second.key);
    expect((await testSandbox({ key: 'chosen' })).key).toBe('chosen');
  });
});

describe('routing', () => {
  it.each(['/orders', '/store/orders/1', '/pets/1/photos', '/pets/'])(
    'answers 404 with an Error body for the unknown path %s',
    async (path) => {
      const sandbox = await testSandbox();
      const reply = await call(sandbox, 'GET', path);
      expect(reply.status).toBe(404);
      expect(record(reply)).toMatchObject({ code: 'not_found', status: 404 });
    },
  );

  it("serves GET /store/orders: the sandbox's own fixed orders, int64 exact", async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'GET', '/store/orders');
    expect(reply.status).toBe(200);
    expect(reply.text).toContain(
      '{"id":9007199254740993,"petId":3,"quantity":1,"status":"delivered"}',
    );
    expect((await call(sandbox, 'POST', '/store/orders')).status).toBe(405);
  });

  it('answers 404 outside /v1', async () => {
    const sandbox = await testSandbox();
    const res = await fetch(sandbox.baseUrl.replace(/\/v1$/, '/v2/pets'), {
      headers: { authorization: `Bearer ${sandbox.key}` },
    });
    expect(res.status).toBe(404);
  });

  it.each([
    ['DELETE', '/pets', 'GET, POST'],
    ['PUT', '/pets', 'GET, POST'],
    ['POST', '/pets/1', 'GET'],
    ['DELETE', '/pets/1', 'GET'],
  ])('answers 405 with Allow to %s %s', async (method, path, allow) => {
    const sandbox = await testSandbox({ seed: 1 });
    const reply = await call(sandbox, method, path);
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe(allow);
    expect(record(reply)).toMatchObject({ code: 'method_not_allowed', status: 405 });
    expect(sandbox.pets()).toHaveLength(1);
  });

  it('sends a Date header from the sandbox clock', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ now: clock.now });
    const reply = await call(sandbox, 'GET', '/pets');
    expect(reply.headers.get('date')).toBe(new Date(CLOCK_START_MS).toUTCString());
  });

  it('logs every request in order with its time, method, target and status', async () => {
    const clock = new FakeClock();
    const sandbox = await testSandbox({ now: clock.now });
    await call(sandbox, 'GET', '/pets?limit=2');
    clock.advanceSeconds(1);
    await call(sandbox, 'POST', '/pets', { body: '{}' });
    await call(sandbox, 'GET', '/pets', { key: null });
    expect(sandbox.requestLog).toEqual([
      { at: CLOCK_START_MS, method: 'GET', path: '/v1/pets?limit=2', status: 200 },
      { at: CLOCK_START_MS + 1000, method: 'POST', path: '/v1/pets', status: 400 },
      { at: CLOCK_START_MS + 1000, method: 'GET', path: '/v1/pets', status: 401 },
    ]);
  });
});
