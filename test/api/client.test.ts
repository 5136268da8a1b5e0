import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PetsApi, joinUrl } from '../../src/api/client.js';
import type { ApiTarget } from '../../src/config/resolve-target.js';
import {
  AuthError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  RequestFailedError,
  ServerError,
} from '../../src/core/errors.js';
import { createTransport, type Transport } from '../../src/http/transport.js';
import { RateGate } from '../../src/ratelimit/gate.js';
import { hostOf } from '../../src/config/base-url.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import {
  sendJson,
  startFaultServer,
  testFaultServer,
  type FaultServer,
} from '../helpers/fault-server.js';
import { testSandbox } from '../helpers/sandbox.js';

const BIG = 9007199254740993n;
let sandbox: RunningSandbox;
let fault: FaultServer;
const transports: Transport[] = [];

beforeEach(async () => {
  sandbox = await testSandbox({ firstId: BIG, key: 'sandbox_key_for_client_tests' });
  fault = await testFaultServer();
});
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

function api(
  target: Partial<ApiTarget> = {},
  timeoutMs = 5_000,
  maxBodyBytes = 8 * 1024 * 1024,
): PetsApi {
  const transport = createTransport({ timeoutMs, maxBodyBytes });
  transports.push(transport);
  return new PetsApi({
    target: {
      profile: 'test',
      baseUrl: sandbox.baseUrl,
      host: hostOf(target.baseUrl ?? sandbox.baseUrl),
      apiKey: sandbox.key,
      keySource: 'config',
      protected: false,
      ...target,
    },
    send: transport.send,
    userAgent: 'pets/test',
  });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

describe('joinUrl', () => {
  it.each([
    ['https://h/v1', '/pets', 'https://h/v1/pets'],
    ['https://h/v1/', '/pets', 'https://h/v1/pets'],
    ['https://h/v1//', '/pets?limit=1', 'https://h/v1/pets?limit=1'],
  ])('%s + %s', (base, path, expected) => expect(joinUrl(base, path)).toBe(expected));
});

describe('PetsApi against the sandbox', () => {
  it('creates, lists and gets a pet with int64 ids exactly', async () => {
    const client = api();
    const created = await client.createPet({
      name: 'Rex',
      categoryId: BIG + 10n,
      status: 'available',
    });
    expect(created).toEqual({ id: BIG, name: 'Rex', categoryId: BIG + 10n, status: 'available' });
    const listed = await client.listPets({ status: 'available' });
    expect(listed.map((pet) => pet.id)).toContain(BIG);
    const { pet, deprecation } = await client.getPet(BIG);
    expect(pet.categoryId).toBe(BIG + 10n);
    expect(deprecation.sunset).toMatch(/2030/);
    expect(deprecation.deprecation).toBeDefined();
  });

  it('works with a base URL that ends in a slash', async () => {
    await expect(
      api({ baseUrl: `${sandbox.baseUrl}/` }).listPets({ limit: 1 }),
    ).resolves.toBeInstanceOf(Array);
  });

  it('maps 401 to AuthError naming the profile and how to log in', async () => {
    const error = await failure(api({ apiKey: 'wrong_key_value' }).listPets({}));
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain('"test"');
    expect((error as AuthError).hint).toContain('pets auth login --profile test');
    expect(error.message).not.toContain('wrong_key_value');
  });

  it('points at PETS_API_KEY when the rejected key came from it', async () => {
    const error = await failure(
      api({ apiKey: 'wrong_key_value', keySource: 'environment' }).listPets({}),
    );
    expect((error as AuthError).hint).toContain('PETS_API_KEY');
  });

  it('maps 404 to NotFoundError', async () => {
    const error = await failure(api().getPet(1n));
    expect(error).toBeInstanceOf(NotFoundError);
    // The request is named by what it asked for; the server's own words are the detail.
    expect(error.message).toBe('no pet with id 1 (404)');
    const { detail } = error as NotFoundError;
    expect(detail).toMatch(/./);
    expect(error.message).not.toContain(detail);
  });
});

describe('PetsApi against a faulty server', () => {
  const faulty = (timeoutMs?: number, maxBodyBytes?: number) =>
    api({ baseUrl: fault.baseUrl, apiKey: 'fault_key_123456' }, timeoutMs, maxBodyBytes);

  it('sends the bearer key, JSON headers and a pets User-Agent', async () => {
    fault.handle((_req, res) => sendJson(res, 201, '{"id":1,"name":"A","categoryId":2}'));
    await faulty().createPet({ name: 'A', categoryId: 9223372036854775807n });
    const sent = fault.requests.at(-1);
    expect(sent?.headers.authorization).toBe('Bearer fault_key_123456');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers.accept).toBe('application/json');
    expect(sent?.headers['user-agent']).toBe('pets/test');
    expect(sent?.body).toBe('{"name":"A","categoryId":9223372036854775807}');
  });

  it('maps 400 to RequestFailedError with the server message', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 400, '{"code":"invalid_body","message":"name is required","status":400}'),
    );
    const error = await failure(faulty().createPet({ name: 'A', categoryId: 1n }));
    expect(error).toBeInstanceOf(RequestFailedError);
    expect(error.message).toContain('name is required');
    expect((error as RequestFailedError).code).toBe('invalid_body');
  });

  it('leaves a 429 to the rate gate in front, which stops with RateLimitError and its Retry-After', async () => {
    fault.handle((_req, res) =>
      sendJson(res, 429, '{"code":"rate_limited","message":"slow down","status":429}', {
        'retry-after': '42',
      }),
    );
    const transport = createTransport({ timeoutMs: 5_000, maxBodyBytes: 1024 * 1024 });
    transports.push(transport);
    const gate = new RateGate({
      send: transport.send,
      clock: { now: Date.now, sleep: () => Promise.reject(new Error('no wait expected')) },
      random: () => 0.5,
      maxWaitMs: 0,
      claimMs: 10_000,
    });
    const limited = new PetsApi({
      target: {
        profile: 'test',
        baseUrl: fault.baseUrl,
        host: hostOf(fault.baseUrl),
        apiKey: 'fault_key_123456',
        keySource: 'config',
        protected: false,
      },
      send: gate.send,
      userAgent: 'pets/test',
    });
    const error = (await failure(limited.listPets({}))) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.exitCode).toBe(5);
    // The server's 42 s, and up to a quarter more: the jitter of a refusal's backoff.
    expect(error.retryAfter).toBeGreaterThanOrEqual(42);
    expect(error.retryAfter).toBeLessThanOrEqual(53);
    expect(error.message).toMatch(/pets stopped after sending 1 request/);
  });

  it.each([
    ['not JSON', '<html>oops</html>', /not valid JSON/],
    ['truncated JSON', '[{"id":1,"name":"A"', /not valid JSON/],
    ['an object instead of an array', '{"pets":[]}', /\$ is not an array/],
    ['a pet without a name', '[{"id":1,"categoryId":2}]', /\$\[0\]\.name is not a string/],
    ['a fractional id', '[{"id":1.5,"name":"A","categoryId":2}]', /\$\[0\]\.id is not an int64/],
    [
      'an id of 1.0',
      '[{"id":1.0,"name":"A","categoryId":2}]',
      /\$\[0\]\.id is not an int64 integer as written: 1\.0$/,
    ],
    [
      'an id of 1e3',
      '[{"id":1,"name":"A","categoryId":2},{"id":1e3,"name":"B","categoryId":2}]',
      /\$\[1\]\.id is not an int64 integer as written: 1e3$/,
    ],
    [
      'an id a double reads as 1',
      '[{"id":1.0000000000000001,"name":"A","categoryId":2}]',
      /\$\[0\]\.id is not an int64 integer as written: 1\.0000000000000001$/,
    ],
    [
      'a categoryId of 42.0',
      '[{"id":1,"name":"A","categoryId":42.0}]',
      /\$\[0\]\.categoryId is not an int64 integer as written: 42\.0$/,
    ],
    ['an id beyond int64', '[{"id":9223372036854775808,"name":"A","categoryId":2}]', /\$\[0\]\.id/],
    ['an unknown status', '[{"id":1,"name":"A","categoryId":2,"status":"lost"}]', /status/],
  ])('refuses %s with exit 7', async (_case, body, why) => {
    fault.handle((_req, res) => sendJson(res, 200, body));
    const error = await failure(faulty().listPets({}));
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).exitCode).toBe(7);
    expect(error.message).toMatch(why);
  });

  it('maps 503 with an HTML body to ServerError', async () => {
    fault.handle((_req, res) =>
      res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>down</h1>'),
    );
    const error = await failure(faulty().listPets({}));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toContain('(503)');
  });

  it('does not follow a redirect, so the key never goes elsewhere', async () => {
    const before = fault.requests.length;
    fault.handle((_req, res) => res.writeHead(302, { location: 'http://127.0.0.2:1/steal' }).end());
    const error = await failure(faulty().listPets({}));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toContain('redirected (302)');
    expect(fault.requests.length).toBe(before + 1);
  });

  it('refuses a body larger than the cap, by header or by stream', async () => {
    fault.handle((_req, res) => sendJson(res, 200, `[${'0,'.repeat(600)}0]`));
    const error = await failure(faulty(5_000, 1_000).listPets({}));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toContain('larger than 1000 bytes');
    fault.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('['.padEnd(800, ' '));
      res.end(' '.repeat(800) + ']');
    });
    await expect(faulty(5_000, 1_000).listPets({})).rejects.toThrow(/larger than/);
  });

  it('times out a server that never answers', async () => {
    fault.handle(() => {});
    const error = await failure(faulty(300).listPets({}));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain('no response within 0.3 s');
  });

  it('says a POST cut off after sending may have created the pet', async () => {
    fault.handle((_req, _res, socket) => socket.destroy());
    const error = await failure(faulty().createPet({ name: 'A', categoryId: 1n }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain('may have been created');
  });

  it('says a refused connection sent nothing', async () => {
    const closed = await startFaultServer();
    await closed.close();
    const client = api({ baseUrl: closed.baseUrl });
    const error = await failure(client.createPet({ name: 'A', categoryId: 1n }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toContain('may have been created');
  });
});
