// A deterministic simulation of pets's rate gate against servers that send no rate headers
// (nginx limit_req, HAProxy, gateways): they answer 429 with nothing but a Date, and pets
// learns their rate from the 429s (src/ratelimit/pacing.ts). One or more batch processes
// share one state store, as pets processes on one key share the state file; the network
// between them and the server jitters. Everything runs on the simulation's virtual clock.

import { expect } from 'vitest';
import type { HttpResponse } from '../../src/http/types.js';
import { RateGate } from '../../src/ratelimit/gate.js';
import { memoryStore } from '../../src/ratelimit/state-store.js';
import {
  fixedWindow,
  Scheduler,
  seededChoices,
  seededRandom,
  slidingWindow,
  START,
  tokenBucket,
  type LimitModel,
} from './simulation.js';

/** A limiter as a server runs it: admits a request (after a delay, for a queue) or not. */
export interface Limiter {
  /** Admitted: after how long the backend gets it (nginx's burst without nodelay queues). */
  admit(now: number): { delayMs: number } | undefined;
}

/**
 * nginx's limit_req (ngx_http_limit_req_module.c): `rate` requests a second, in thousandths
 * of a request; a request whose excess over the rate passes `burst` is refused and changes
 * nothing; one within it is delayed until the excess drains, unless `nodelay`.
 */
export function nginxLimitReq(rate: number, burst: number, nodelay: boolean): Limiter {
  const perSecond = rate * 1000;
  let excess = 0;
  let last: number | undefined;
  return {
    admit(now) {
      const elapsed = last === undefined ? 60_000 : Math.abs(now - last);
      const next = Math.max(0, excess - (perSecond * elapsed) / 1000 + 1000);
      if (next > burst * 1000) return undefined;
      excess = next;
      last = now;
      return { delayMs: nodelay ? 0 : Math.floor((excess * 1000) / perSecond) };
    },
  };
}

/** A window or bucket model (simulation.ts) as a limiter that admits at once. */
export function counting(model: LimitModel): Limiter {
  return {
    admit(now) {
      if (!model.allows(now)) return undefined;
      model.count(now);
      return { delayMs: 0 };
    },
  };
}

export const FAMILIES = [
  'nginx burst=0',
  'nginx burst',
  'nginx burst nodelay',
  'token bucket',
  'fixed window',
  'sliding window',
] as const;

export interface HeaderlessCase {
  seed: number;
  name: string;
  family: (typeof FAMILIES)[number];
  limiter: () => Limiter;
  /** Records per process: one import of 60, or two of 40 at once. */
  imports: number[];
  workers: number;
  /** The network's one-way delay, from 1 ms to this. */
  jitterMs: number;
}

/** nginx at `rate` a second, burst=0, as the issue met it: `imports` over a jittery loopback. */
export function nginxCase(seed: number, rate: number, imports: number[]): HeaderlessCase {
  return {
    seed,
    name: `nginx ${rate}r/s, imports ${imports.join('+')}, jitter ≤5 ms`,
    family: 'nginx burst=0',
    limiter: () => nginxLimitReq(rate, 0, false),
    imports,
    workers: 8,
    jitterMs: 5,
  };
}

/** The case a seed stands for: a limiter family and its settings, the imports, the network. */
export function headerlessCase(seed: number, family?: HeaderlessCase['family']): HeaderlessCase {
  const { between, pick } = seededChoices(seed * 104_729);
  const rate = pick([1, 2, 2, 3, 5, 10]);
  const burst = between(2, 10);
  const seconds = pick([1, 2, 5]);
  const limit = Math.max(1, rate * seconds);
  const families: Array<[HeaderlessCase['family'], string, () => Limiter]> = [
    ['nginx burst=0', `nginx ${rate}r/s`, () => nginxLimitReq(rate, 0, false)],
    ['nginx burst', `nginx ${rate}r/s burst=${burst}`, () => nginxLimitReq(rate, burst, false)],
    [
      'nginx burst nodelay',
      `nginx ${rate}r/s burst=${burst} nodelay`,
      () => nginxLimitReq(rate, burst, true),
    ],
    [
      'token bucket',
      `bucket ${burst} +1/${1000 / rate}ms`,
      () => counting(tokenBucket(burst, 1000 / rate)),
    ],
    [
      'fixed window',
      `fixed ${limit}/${seconds}s`,
      () => counting(fixedWindow(limit, seconds * 1000, true)),
    ],
    [
      'sliding window',
      `sliding ${limit}/${seconds}s`,
      () => counting(slidingWindow(limit, seconds * 1000)),
    ],
  ];
  const chosen = family ? families.find(([f]) => f === family)! : pick(families);
  const imports = pick([[60], [60], [40, 40]]);
  const jitterMs = pick([1, 5, 10, 25]);
  const workers = 8;
  return {
    seed,
    name: `${chosen[1]}, imports ${imports.join('+')}, jitter ≤${jitterMs} ms`,
    family: chosen[0],
    limiter: chosen[2],
    imports,
    workers,
    jitterMs,
  };
}

export interface HeaderlessReport {
  finished: boolean;
  errors: string[];
  /** 429s the server answered. */
  limited: number;
  accepted: number;
  /** From the first request the backend got to the last. */
  spanMs: number;
  /** The least span the limiter allows for as many requests (a greedy client, no network). */
  leastMs: number;
  ratio: number;
}

/** The least span: a client that sends each request the moment the limiter admits it. */
function leastSpan(limiter: Limiter, requests: number): number {
  let t = START;
  const times: number[] = [];
  while (times.length < requests) {
    const admitted = limiter.admit(t);
    if (admitted) times.push(t + admitted.delayMs);
    else t += 1;
  }
  return times.at(-1)! - times[0]!;
}

export async function simulateHeaderless(options: HeaderlessCase): Promise<HeaderlessReport> {
  const random = seededRandom(options.seed);
  const clock = new Scheduler(START);
  const limiter = options.limiter();
  const store = memoryStore();
  const backend: number[] = [];
  let limited = 0;
  const errors: string[] = [];
  const send = (): Promise<HttpResponse> =>
    new Promise((resolve) => {
      const there = 1 + Math.floor(random() * options.jitterMs);
      const back = 1 + Math.floor(random() * options.jitterMs);
      clock.at(there, () => {
        const now = clock.now();
        const date = new Date(Math.floor(now / 1000) * 1000).toUTCString();
        const admitted = limiter.admit(now);
        if (!admitted) {
          limited++;
          clock.at(back, () => resolve({ status: 429, headers: { date }, text: '<html>' }));
          return;
        }
        clock.at(admitted.delayMs, () => {
          backend.push(clock.now());
          clock.at(back, () => resolve({ status: 201, headers: { date }, text: '{}' }));
        });
      });
    });
  const runs = options.imports.map(async (records) => {
    const gate = new RateGate({
      send,
      clock,
      random,
      maxWaitMs: 3_600_000,
      store,
      claimMs: 35_000,
    });
    let left = records;
    const worker = async () => {
      while (left > 0) {
        left--;
        gate.expect(left);
        try {
          const response = await gate.send({
            method: 'POST',
            url: 'http://sim/v1/pets',
            headers: {},
          });
          if (response.status !== 201) errors.push(`status ${response.status}`);
        } catch (error) {
          errors.push((error as Error).message);
        }
      }
    };
    await Promise.all(Array.from({ length: options.workers }, worker));
    await gate.finish();
  });
  const finished = await clock.run(500_000);
  await Promise.race([Promise.all(runs), new Promise((r) => setImmediate(r))]);
  const total = options.imports.reduce((a, b) => a + b, 0);
  const spanMs = backend.length < 2 ? 0 : backend.at(-1)! - backend[0]!;
  const leastMs = leastSpan(options.limiter(), total);
  return {
    finished,
    errors,
    limited,
    accepted: backend.length,
    spanMs,
    leastMs,
    ratio: leastMs === 0 ? 1 : spanMs / leastMs,
  };
}

/** Runs a case, expecting it to end with every record created once and no error. */
export async function runToEnd(options: HeaderlessCase) {
  const report = await simulateHeaderless(options);
  const context = `${options.name} (seed ${options.seed}): ${JSON.stringify(report)}`;
  expect(report.finished, context).toBe(true);
  expect(report.errors, context).toEqual([]);
  expect(report.accepted, context).toBe(options.imports.reduce((a, b) => a + b, 0));
  return { report, context };
}
