import { parseJson, type JsonValue } from '../../src/json/int64-json.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';

/** A round start time, so expected Reset and Retry-After values are easy to write down. */
export const CLOCK_START_MS = Date.UTC(2031, 0, 1);

export class FakeClock {
  constructor(public ms: number = CLOCK_START_MS) {}

  readonly now = (): number => this.ms;

  advanceSeconds(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  /** The body exactly as sent, to check int64 digits. */
  text: string;
  body: JsonValue;
}

export interface CallOptions {
  /** The bearer key; default the sandbox's own, null for no Authorization header. */
  key?: string | null;
  /** A JSON body written with stringifyJson by the caller, or any raw text. */
  body?: string;
  headers?: Record<string, string>;
}

export async function call(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const key = options.key === undefined ? sandbox.key : options.key;
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: { ...headers, ...options.headers },
    body: options.body,
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: text === '' ? null : parseJson(text),
  };
}

/** The body as a plain record, for field checks. */
export function record(reply: Reply): Record<string, JsonValue> {
  const { body } = reply;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Error(`expected a JSON object, got ${reply.text}`);
  }
  return body;
}

/** The body as an array of records. */
export function records(reply: Reply): Record<string, JsonValue>[] {
  if (!Array.isArray(reply.body)) throw new Error(`expected a JSON array, got ${reply.text}`);
  return reply.body as Record<string, JsonValue>[];
}

/** The X-RateLimit-* headers as numbers; throws when one is missing or not an integer. */
export function rateLimitOf(reply: Reply): { limit: number; remaining: number; reset: number } {
  const read = (name: string): number => {
    const value = reply.headers.get(name);
    if (value === null || !/^\d+$/.test(value)) throw new Error(`${name} is ${value}`);
    return Number(value);
  };
  return {
    limit: read('x-ratelimit-limit'),
    remaining: read('x-ratelimit-remaining'),
    reset: read('x-ratelimit-reset'),
  };
}
