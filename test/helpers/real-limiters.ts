// Rate limiters that real users deploy, from npm, each in front of the contract's three
// operations kept in memory, on a free loopback port: what pets meets beyond its own servers.
// Each server keeps its own log of what it answered, and when, which is what the tests and
// `npm run bench` (test/bench/limiters.mjs) measure. Node runs this file as it is (types
// stripped), so it imports only packages and node: modules. Add a limiter to LIMITERS.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { RateLimiterRes } from 'rate-limiter-flexible';

export interface LimitSettings {
  /** Requests allowed in each window. */
  limit: number;
  /** The window's length, in whole seconds (rate-limiter-flexible counts in seconds). */
  windowMs: number;
}

export interface Answered {
  /** When the request arrived, on this machine's clock. */
  at: number;
  method: string;
  status: number;
}

export interface LimiterServer {
  name: string;
  baseUrl: string;
  key: string;
  /** Every request answered, in the order they arrived: the server's own log. */
  log: Answered[];
  /** How many times each pet name was created. */
  created: Map<string, number>;
  close(): Promise<void>;
}

export const KEY = 'real_limiter_key_0123456789';

interface Reply {
  status: number;
  body: unknown;
}

/**
 * The contract's three operations (list, add, get), in memory. `body` is the parsed JSON of a
 * POST, or undefined when it did not parse.
 */
function contractApi() {
  const pets: Array<{ id: number; name: string; categoryId: number; status?: string }> = [];
  const created = new Map<string, number>();
  const error = (status: number, code: string, message: string): Reply => ({
    status,
    body: { code, message, status },
  });
  const handle = (
    method: string,
    url: string,
    authorization: string | undefined,
    body: unknown,
  ): Reply => {
    if (authorization !== `Bearer ${KEY}`) return error(401, 'unauthorized', 'invalid API key');
    const { pathname, searchParams } = new URL(url, 'http://x');
    if (pathname === '/v1/pets' && method === 'GET') {
      const status = searchParams.get('status');
      const limit = Number(searchParams.get('limit') ?? 20);
      return {
        status: 200,
        body: pets.filter((p) => !status || p.status === status).slice(0, limit),
      };
    }
    if (pathname === '/v1/pets' && method === 'POST') {
      const pet = body as { name?: unknown; categoryId?: unknown; status?: string } | undefined;
      if (typeof pet?.name !== 'string' || !Number.isInteger(pet.categoryId))
        return error(400, 'invalid_body', 'name and categoryId are required');
      const record = { ...pet, id: pets.length + 1 } as (typeof pets)[number];
      pets.push(record);
      created.set(record.name, (created.get(record.name) ?? 0) + 1);
      return { status: 201, body: record };
    }
    const get = /^\/v1\/pets\/(\d+)$/.exec(pathname);
    if (get && method === 'GET') {
      const pet = pets.find((p) => p.id === Number(get[1]));
      return pet ? { status: 200, body: pet } : error(404, 'not_found', 'no such pet');
    }
    return error(404, 'not_found', 'no such operation');
  };
  return { handle, created };
}

type Api = ReturnType<typeof contractApi>;

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** `listener` on a free loopback port, every request it answers logged. */
async function serve(name: string, api: Api, listener: RequestListener): Promise<LimiterServer> {
  const log: Answered[] = [];
  const server: Server = createServer((req, res) => {
    const entry = { at: Date.now(), method: req.method ?? '', status: 0 };
    res.on('finish', () => {
      entry.status = res.statusCode;
      log.push(entry);
    });
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    key: KEY,
    log,
    created: api.created,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function expressWith(
  name: string,
  limiter: (express: typeof import('express')) => Promise<import('express').RequestHandler>,
): Promise<LimiterServer> {
  const express = (await import('express')).default;
  const api = contractApi();
  const app = express();
  app.use(await limiter(express));
  app.use(async (req, res) => {
    const reply = api.handle(req.method, req.url, req.headers.authorization, await readBody(req));
    res.status(reply.status).json(reply.body);
  });
  return serve(name, api, app);
}

function expressRateLimit(mode: 'legacy' | 'draft-6' | 'draft-7' | 'draft-8') {
  return (settings: LimitSettings) =>
    expressWith(`express-rate-limit ${mode}`, async () => {
      const { rateLimit } = await import('express-rate-limit');
      return rateLimit({
        windowMs: settings.windowMs,
        limit: settings.limit,
        standardHeaders: mode === 'legacy' ? false : mode,
        legacyHeaders: mode === 'legacy',
      });
    });
}

/** rate-limiter-flexible behind express, with the headers its README sets. */
function rateLimiterFlexible(settings: LimitSettings) {
  return expressWith('rate-limiter-flexible', async () => {
    const { RateLimiterMemory } = await import('rate-limiter-flexible');
    const limiter = new RateLimiterMemory({
      points: settings.limit,
      duration: settings.windowMs / 1000,
    });
    return (req, res, next) => {
      const headers = (result: RateLimiterRes) => ({
        'Retry-After': String(result.msBeforeNext / 1000),
        'X-RateLimit-Limit': String(settings.limit),
        'X-RateLimit-Remaining': String(result.remainingPoints),
        'X-RateLimit-Reset': String(Math.ceil((Date.now() + result.msBeforeNext) / 1000)),
      });
      limiter.consume(req.ip ?? 'key').then(
        (result) => {
          const { 'Retry-After': _, ...rest } = headers(result);
          res.set(rest);
          next();
        },
        (result: RateLimiterRes) => {
          res
            .set(headers(result))
            .status(429)
            .json({ code: 'rate_limited', message: 'slow down', status: 429 });
        },
      );
    };
  });
}

async function fastifyRateLimit(settings: LimitSettings): Promise<LimiterServer> {
  const fastify = (await import('fastify')).default;
  const rateLimit = (await import('@fastify/rate-limit')).default;
  const api = contractApi();
  let listener: RequestListener | undefined;
  const app = fastify({
    serverFactory: (handler) => {
      listener = handler;
      return createServer();
    },
  });
  await app.register(rateLimit, { max: settings.limit, timeWindow: settings.windowMs });
  app.all('/*', async (request, reply) => {
    const out = api.handle(
      request.method,
      request.url,
      request.headers.authorization,
      request.body,
    );
    return reply.status(out.status).send(out.body);
  });
  await app.ready();
  const server = await serve('@fastify/rate-limit', api, listener!);
  return { ...server, close: async () => (await app.close(), server.close()) };
}

async function koaRatelimit(settings: LimitSettings): Promise<LimiterServer> {
  const Koa = (await import('koa')).default;
  const ratelimit = (await import('koa-ratelimit')).default;
  const api = contractApi();
  const app = new Koa();
  app.use(
    ratelimit({
      driver: 'memory',
      db: new Map(),
      duration: settings.windowMs,
      max: settings.limit,
      id: (ctx) => ctx.ip,
    }),
  );
  app.use(async (ctx) => {
    const reply = api.handle(
      ctx.method,
      ctx.url,
      ctx.get('authorization') || undefined,
      await readBody(ctx.req),
    );
    ctx.status = reply.status;
    ctx.body = reply.body;
  });
  return serve('koa-ratelimit', api, app.callback());
}

async function honoRateLimiter(settings: LimitSettings): Promise<LimiterServer> {
  const { Hono } = await import('hono');
  const { rateLimiter } = await import('hono-rate-limiter');
  const { getRequestListener } = await import('@hono/node-server');
  const api = contractApi();
  const app = new Hono();
  app.use(
    rateLimiter({
      windowMs: settings.windowMs,
      limit: settings.limit,
      standardHeaders: 'draft-7',
      keyGenerator: () => 'one-key',
    }),
  );
  app.all('*', async (c) => {
    const body = c.req.method === 'POST' ? await c.req.json().catch(() => undefined) : undefined;
    const url = new URL(c.req.url);
    const reply = api.handle(
      c.req.method,
      url.pathname + url.search,
      c.req.header('authorization'),
      body,
    );
    return c.json(reply.body as object, reply.status as 200);
  });
  return serve('hono-rate-limiter', api, getRequestListener(app.fetch));
}

/** Every real limiter, by the name the tests and the bench print. */
export const LIMITERS: Record<string, (settings: LimitSettings) => Promise<LimiterServer>> = {
  'express-rate-limit legacy': expressRateLimit('legacy'),
  'express-rate-limit draft-6': expressRateLimit('draft-6'),
  'express-rate-limit draft-7': expressRateLimit('draft-7'),
  'express-rate-limit draft-8': expressRateLimit('draft-8'),
  '@fastify/rate-limit': fastifyRateLimit,
  'koa-ratelimit': koaRatelimit,
  'hono-rate-limiter': honoRateLimiter,
  'rate-limiter-flexible': rateLimiterFlexible,
};

/**
 * The least time the limit allows between the first and the last of `accepted` requests: a
 * window's worth go at once, and each further window's start is a window later.
 */
export function leastMs(accepted: number, settings: LimitSettings): number {
  return Math.max(0, Math.ceil(accepted / settings.limit) - 1) * settings.windowMs;
}

/** What the server's own log says of a run: its 429s and 403s, and its time against the least. */
export function measure(server: LimiterServer, settings: LimitSettings) {
  const accepted = server.log.filter((entry) => entry.status < 400 || entry.status === 404);
  const spanMs = accepted.length < 2 ? 0 : accepted.at(-1)!.at - accepted[0]!.at;
  const least = leastMs(accepted.length, settings);
  return {
    limited: server.log.filter((entry) => entry.status === 429).length,
    forbidden: server.log.filter((entry) => entry.status === 403).length,
    accepted: accepted.length,
    spanMs,
    leastMs: least,
    ratio: least === 0 ? undefined : spanMs / least,
  };
}

const OPENAPI = fileURLToPath(new URL('../fixtures/animal-store.openapi.yaml', import.meta.url));

export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * `prism mock` on the contract's OpenAPI rendering: every answer carries X-RateLimit-Limit 0,
 * -Remaining 0 and -Reset 0, as a team's mock of the API does. Prism keeps nothing, so its
 * log and records stay empty.
 */
export async function startPrism(): Promise<LimiterServer> {
  const port = await freePort();
  const bin = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url));
  const child = spawn(bin, ['mock', '-h', '127.0.0.1', '-p', String(port), OPENAPI], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${output}`)), 60_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Prism is listening')) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => reject(new Error(`prism exited ${code}:\n${output}`)));
  });
  return {
    name: 'prism mock',
    baseUrl: `http://127.0.0.1:${port}/v1`,
    key: KEY,
    log: [],
    created: new Map(),
    close: async () => {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** The contract's operations with no limiter and no rate headers: a backend for nginx. */
export async function plainContract(): Promise<LimiterServer> {
  const api = contractApi();
  return serve('plain', api, (req, res) => {
    void readBody(req).then((body) => {
      const reply = api.handle(req.method ?? '', req.url ?? '', req.headers.authorization, body);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
}
