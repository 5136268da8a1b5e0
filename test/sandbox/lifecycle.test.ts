import { request, Agent } from 'node:http';
import { networkInterfaces } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { startSandbox as startUnmanaged } from '../../src/sandbox/index.js';
import { call } from './helpers.js';
import { testSandbox } from '../helpers/sandbox.js';

function getWithAgent(url: string, key: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const hasIpv6Loopback = Object.values(networkInterfaces())
  .flat()
  .some((address) => address?.address === '::1');

describe('sandbox lifecycle', () => {
  it('runs two sandboxes side by side, each with its own store, key and limits', async () => {
    const first = await testSandbox({ rpm: 1 });
    const second = await testSandbox({ seed: 2 });
    expect(first.baseUrl).not.toBe(second.baseUrl);
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    await call(first, 'POST', '/pets', { body: '{"name":"Only","categoryId":1}' });
    expect(first.pets().map((pet) => pet.name)).toEqual(['Only']);
    expect(second.pets()).toHaveLength(2);
    expect((await call(first, 'GET', '/pets')).status).toBe(429);
    expect((await call(second, 'GET', '/pets')).status).toBe(200);
    expect((await call(second, 'GET', '/pets', { key: first.key })).status).toBe(401);
    expect(first.requestLog).toHaveLength(2);
    expect(second.requestLog).toHaveLength(2);
  });

  it('closes while a keep-alive connection is idle, and stops answering', async () => {
    const sandbox = await startUnmanaged();
    const agent = new Agent({ keepAlive: true });
    try {
      expect(await getWithAgent(`${sandbox.baseUrl}/pets`, sandbox.key, agent)).toBe(200);
      expect(agent.freeSockets).not.toEqual({});
      await sandbox.close();
      await expect(getWithAgent(`${sandbox.baseUrl}/pets`, sandbox.key, agent)).rejects.toThrow();
    } finally {
      agent.destroy();
    }
  });

  it('finishes a request in flight when closed, then closes its connection', async () => {
    const sandbox = await startUnmanaged();
    const agent = new Agent({ keepAlive: true });
    try {
      const req = request(`${sandbox.baseUrl}/pets`, {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${sandbox.key}`, 'content-type': 'application/json' },
      });
      const answered = new Promise<{ status: number; connection: string | undefined }>(
        (resolve, reject) => {
          req.on('response', (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }),
            );
          });
          req.on('error', reject);
        },
      );
      req.write('{"name":"Late",');
      await vi.waitFor(() => expect(sandbox.requestLog).toHaveLength(1));

      const closed = sandbox.close();
      req.end('"categoryId":1}');
      expect(await answered).toEqual({ status: 201, connection: 'close' });
      await closed;
      expect(sandbox.pets().map((pet) => pet.name)).toEqual(['Late']);
    } finally {
      agent.destroy();
    }
  });

  it('can be closed twice', async () => {
    const sandbox = await startUnmanaged();
    await Promise.all([sandbox.close(), sandbox.close()]);
    await expect(sandbox.close()).resolves.toBeUndefined();
  });

  it('serves many requests over one keep-alive connection', async () => {
    const sandbox = await testSandbox();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sockets = new Set<unknown>();
      agent.on('free', (socket) => sockets.add(socket));
      for (let i = 0; i < 5; i++) {
        expect(await getWithAgent(`${sandbox.baseUrl}/pets`, sandbox.key, agent)).toBe(200);
      }
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it.skipIf(!hasIpv6Loopback)('brackets an IPv6 host in the base URL', async () => {
    const sandbox = await testSandbox({ host: '::1' });
    expect(sandbox.baseUrl).toMatch(/^http:\/\/\[::1\]:\d+\/v1$/);
    expect((await call(sandbox, 'GET', '/pets')).status).toBe(200);
  });

  it('refuses a port that is taken, naming it', async () => {
    const first = await testSandbox();
    const port = Number(new URL(first.baseUrl).port);
    await expect(testSandbox({ port })).rejects.toThrow(`127.0.0.1:${port} (EADDRINUSE)`);
  });

  it.each([
    [{ plan: 'gold' as never }, 'plan must be one of free, pro, business, unlimited'],
    [{ rpm: 0 }, 'rpm must be a whole number'],
    [{ rpd: 1.5 }, 'rpd must be a whole number'],
    [{ seed: -1 }, 'seed must be'],
    [{ port: 70000 }, 'port must be'],
    [{ banAfter: 0 }, 'banAfter must be'],
    [{ firstId: 2n ** 63n }, 'firstId must be within int64'],
  ])('rejects invalid options %o', async (options, message) => {
    await expect(testSandbox(options)).rejects.toThrow(message);
  });

  it('rejects a key with spaces without echoing it', async () => {
    const started = testSandbox({ key: 'has a space' });
    await expect(started).rejects.toThrow('key must be');
    await expect(started).rejects.not.toThrow('has a space');
  });

  it('seeds the same sample pets every time, with a mix of statuses', async () => {
    const first = await testSandbox({ seed: 15 });
    const second = await testSandbox({ seed: 15 });
    expect(first.pets()).toEqual(second.pets());
    const pets = first.pets();
    expect(pets).toHaveLength(15);
    expect(new Set(pets.map((pet) => pet.name)).size).toBe(15);
    expect(new Set(pets.map((pet) => pet.status))).toEqual(
      new Set(['available', 'pending', 'sold', undefined]),
    );
    expect(new Set(pets.map((pet) => pet.categoryId)).size).toBeGreaterThan(1);
  });

  it('returns copies from pets(), so tests cannot change the store by accident', async () => {
    const sandbox = await testSandbox({ seed: 1 });
    const [pet] = sandbox.pets();
    if (pet) pet.name = 'Changed';
    expect(sandbox.pets()[0]?.name).toBe('Bella');
  });
});
