import { describe, expect, it } from 'vitest';
import { call, record, type Reply } from './helpers.js';
import { testSandbox } from '../helpers/sandbox.js';

function expectDeprecationHeaders(reply: Reply): void {
  expect(reply.headers.get('deprecation')).toBe('true');
  expect(reply.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  expect(reply.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
}

describe('GET /pets/{petId}', () => {
  it('answers 200 with the pet and announces the deprecation', async () => {
    const sandbox = await testSandbox({ seed: 3 });
    const reply = await call(sandbox, 'GET', '/pets/2');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: 2, name: 'Max', categoryId: 2, status: 'pending' });
    expectDeprecationHeaders(reply);
  });

  it('finds a pet whose id is beyond 2^53, exactly', async () => {
    const sandbox = await testSandbox({ firstId: 9007199254740993n, seed: 2 });
    const reply = await call(sandbox, 'GET', '/pets/9007199254740994');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(
      '{"id":9007199254740994,"name":"Max","categoryId":2,"status":"pending"}',
    );
  });

  it.each([
    ['an unknown id', '4'],
    ['an id that is not a number', 'abc'],
    ['an id beyond int64', '9223372036854775808'],
    ['an id with a fraction', '1.0'],
  ])('answers 404 with an Error body for %s', async (_case, petId) => {
    const sandbox = await testSandbox({ seed: 3 });
    const reply = await call(sandbox, 'GET', `/pets/${petId}`);
    expect(reply.status).toBe(404);
    expect(record(reply)).toMatchObject({ code: 'not_found', status: 404 });
    expectDeprecationHeaders(reply);
  });

  it('answers 404 for an id one past a pet beyond 2^53', async () => {
    const sandbox = await testSandbox({ firstId: 9007199254740993n, seed: 1 });
    expect((await call(sandbox, 'GET', '/pets/9007199254740993')).status).toBe(200);
    expect((await call(sandbox, 'GET', '/pets/9007199254740992')).status).toBe(404);
  });

  it('announces the deprecation on 401 and 405 as well', async () => {
    const sandbox = await testSandbox({ seed: 1 });
    const unauthorized = await call(sandbox, 'GET', '/pets/1', { key: null });
    expect(unauthorized.status).toBe(401);
    expectDeprecationHeaders(unauthorized);
    const wrongMethod = await call(sandbox, 'DELETE', '/pets/1');
    expect(wrongMethod.status).toBe(405);
    expectDeprecationHeaders(wrongMethod);
  });

  it('does not mark the list operation deprecated', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'GET', '/pets');
    expect(reply.headers.get('deprecation')).toBeNull();
    expect(reply.headers.get('sunset')).toBeNull();
  });
});
