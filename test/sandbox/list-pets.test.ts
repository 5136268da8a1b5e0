import { describe, expect, it } from 'vitest';
import { call, records, record } from './helpers.js';
import { testSandbox } from '../helpers/sandbox.js';

describe('GET /pets', () => {
  it('returns a bare array of at most 20 pets in id order when limit is absent', async () => {
    const sandbox = await testSandbox({ seed: 25 });
    const reply = await call(sandbox, 'GET', '/pets');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json');
    const pets = records(reply);
    expect(pets).toHaveLength(20);
    expect(pets.map((pet) => pet.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(pets[0]).toEqual({ id: 1, name: 'Bella', categoryId: 1, status: 'available' });
  });

  it.each([1, 5, 100])('returns at most limit=%i pets', async (limit) => {
    const sandbox = await testSandbox({ seed: 120 });
    const reply = await call(sandbox, 'GET', `/pets?limit=${limit}`);
    expect(reply.status).toBe(200);
    expect(records(reply)).toHaveLength(limit);
  });

  it('returns fewer than limit when the store holds fewer, and [] when empty', async () => {
    const seeded = await testSandbox({ seed: 3 });
    expect(records(await call(seeded, 'GET', '/pets?limit=10'))).toHaveLength(3);
    const empty = await testSandbox();
    const reply = await call(empty, 'GET', '/pets');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('[]');
  });

  it.each(['available', 'pending', 'sold'])(
    'returns only pets with status=%s, in id order',
    async (status) => {
      const sandbox = await testSandbox({ seed: 40 });
      const expected = sandbox
        .pets()
        .filter((pet) => pet.status === status)
        .slice(0, 20)
        .map((pet) => Number(pet.id));
      const pets = records(await call(sandbox, 'GET', `/pets?status=${status}`));
      expect(expected.length).toBeGreaterThan(5);
      expect(pets.map((pet) => pet.status)).toEqual(expected.map(() => status));
      expect(pets.map((pet) => pet.id)).toEqual(expected);
    },
  );

  it('applies limit after the status filter', async () => {
    const sandbox = await testSandbox({ seed: 40 });
    const pets = records(await call(sandbox, 'GET', '/pets?status=sold&limit=3'));
    expect(pets).toHaveLength(3);
    expect(pets.every((pet) => pet.status === 'sold')).toBe(true);
  });

  it('ignores unknown query parameters', async () => {
    const sandbox = await testSandbox({ seed: 2 });
    const reply = await call(sandbox, 'GET', '/pets?page=7');
    expect(reply.status).toBe(200);
    expect(records(reply)).toHaveLength(2);
  });

  it.each(['0', '101', 'abc', '', '1.5', '-1', '+5', '1e2'])(
    'answers 400 naming the allowed range for limit=%s',
    async (limit) => {
      const sandbox = await testSandbox({ seed: 2 });
      const reply = await call(sandbox, 'GET', `/pets?limit=${limit}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        code: 'invalid_query',
        message: expect.stringContaining('limit must be an integer from 1 to 100'),
        status: 400,
      });
    },
  );

  it.each(['lost', 'AVAILABLE', ''])(
    'answers 400 naming the allowed values for status=%s',
    async (status) => {
      const sandbox = await testSandbox({ seed: 2 });
      const reply = await call(sandbox, 'GET', `/pets?status=${status}`);
      expect(reply.status).toBe(400);
      expect(record(reply)).toMatchObject({ status: 400, code: 'invalid_query' });
      expect(record(reply).message).toContain('available, pending, sold');
    },
  );

  it('answers 400 when limit is given twice', async () => {
    const sandbox = await testSandbox({ seed: 2 });
    const reply = await call(sandbox, 'GET', '/pets?limit=1&limit=2');
    expect(reply.status).toBe(400);
    expect(record(reply).message).toContain('limit may be given once');
  });

  it('reports both problems when limit and status are both wrong', async () => {
    const sandbox = await testSandbox();
    const reply = await call(sandbox, 'GET', '/pets?limit=0&status=gone');
    expect(record(reply).message).toMatch(/limit.*; status/);
  });
});
