import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

export interface StrictServerOptions {
  /** Requests allowed in each window. */
  limit: number;
  windowMs: number;
  /** The server's clock is this far ahead of this machine's (windows align to its clock). */
  skewMs?: number;
  key?: string;
  /** Holds each answer this long (or as long as this says, per request), as a distant server would. */
  latencyMs?: number | (() => number);
  /**
   * Holds every request, uncounted and unanswered, until `open(atMs)` says when to take them
   * (in the order they came): a fleet of processes is started and ready before its window
   * begins.
   */
  held?: boolean;
}

export interface StrictRequest {
  at: number;
  method: string;
  path: string;
  status: number;
}

export interface StrictServer {
  baseUrl: string;
  key: string;
  requests: StrictRequest[];
  /** Pets created, by name, in the order they came. */
  created: string[];
  /** 429s sent, and requests that came while the key was blocked (each bans it). */
  limited(): number;
  sentWhileBlocked(): number;
  /**
   * Takes the requests held (`held`), and those after them, from `atMs` (this machine's
   * clock), where a window begins: the server's clock is moved (less than a window, before
   * any request was answered) so that one does. Returns its skew from then on.
   */
  open(atMs: number): number;
  close(): Promise<void>;
}

/**
 * An API server that is strict about its limit, on the real clock: a fixed window aligned to
 * multiples of its length on the server's clock; over the limit, 429 with Retry-After, and
 * the key blocked until then; any request during a block bans the key for ten minutes.
 */
export async function startStrictServer(options: StrictServerOptions): Promise<StrictServer> {
  const key = options.key ?? 'strict_key_0123456789';
  let skewMs = options.skewMs ?? 0;
  const serverNow = () => Date.now() + skewMs;
  const requests: StrictRequest[] = [];
  const created: string[] = [];
  let windowStart = Number.NEGATIVE_INFINITY;
  let used = 0;
  let blockedUntil = Number.NEGATIVE_INFINITY;
  let limited = 0;
  let sentWhileBlocked = 0;
  let nextId = 1;

  // Until `open`, the moment to take requests from is not known; then it is `openAtMs`.
  let openAtMs = options.held ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  const waiting: Array<() => void> = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (openAtMs === Number.POSITIVE_INFINITY) waiting.push(take);
      else if (Date.now() < openAtMs) setTimeout(take, openAtMs - Date.now());
      else take();
    });
    const take = () => {
      const now = serverNow();
      const entry = { at: Date.now(), method: req.method ?? '', path: req.url ?? '', status: 0 };
      requests.push(entry);
      if (now >= windowStart + options.windowMs) {
        windowStart = Math.floor(now / options.windowMs) * options.windowMs;
        used = 0;
      }
      const reset = Math.ceil((windowStart + options.windowMs) / 1000);
      const answer = (status: number, body: string, extra: Record<string, string> = {}) => {
        entry.status = status;
        const send = () =>
          res
            .writeHead(status, {
              'content-type': 'application/json',
              date: new Date(now).toUTCString(),
              'x-ratelimit-limit': String(options.limit),
              'x-ratelimit-remaining': String(
                status === 429 ? 0 : Math.max(0, options.limit - used),
              ),
              'x-ratelimit-reset': String(Math.max(reset, Math.ceil(blockedUntil / 1000))),
              ...extra,
            })
            .end(body);
        const latency =
          typeof options.latencyMs === 'function' ? options.latencyMs() : options.latencyMs;
        if (latency) setTimeout(send, latency);
        else send();
      };
      if (req.headers.authorization !== `Bearer ${key}`) {
        answer(401, '{"code":"unauthorized","message":"bad key","status":401}');
        return;
      }
      if (now < blockedUntil) {
        sentWhileBlocked++;
        limited++;
        blockedUntil = now + 600_000;
        answer(429, '{"code":"key_banned","message":"banned","status":429}', {
          'retry-after': '600',
        });
        return;
      }
      if (used >= options.limit) {
        limited++;
        blockedUntil = windowStart + options.windowMs;
        const retry = String(Math.max(1, Math.ceil((blockedUntil - now) / 1000)));
        answer(429, '{"code":"rate_limited","message":"slow down","status":429}', {
          'retry-after': retry,
        });
        return;
      }
      used++;
      if (req.method === 'POST') {
        const pet = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
          name?: string;
          categoryId?: number;
        };
        created.push(pet.name ?? '');
        answer(
          201,
          JSON.stringify({ id: nextId++, name: pet.name, categoryId: pet.categoryId ?? 1 }),
        );
        return;
      }
      answer(200, '[]');
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    key,
    requests,
    created,
    limited: () => limited,
    sentWhileBlocked: () => sentWhileBlocked,
    open: (atMs) => {
      if (requests.length > 0) throw new Error('open: the server has answered already');
      skewMs += (options.windowMs - ((atMs + skewMs) % options.windowMs)) % options.windowMs;
      openAtMs = atMs;
      for (const take of waiting.splice(0)) setTimeout(take, atMs - Date.now());
      return skewMs;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The skew that puts the end of the server's current window `msFromNow` from now. */
export function skewEndingWindowIn(windowMs: number, msFromNow: number): number {
  const now = Date.now();
  const wanted = windowMs - msFromNow;
  return (((wanted - (now % windowMs)) % windowMs) + windowMs) % windowMs;
}

/** A strict server for the current test, closed when it ends. */
export async function strictServer(options: StrictServerOptions): Promise<StrictServer> {
  const server = await startStrictServer(options);
  onTestFinished(() => server.close());
  return server;
}
