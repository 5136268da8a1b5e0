// A deterministic simulation of pets's rate gate against strict servers, on virtual time.
// M simulated processes (one RateGate each) share one state store, as pets processes share
// the state file; N workers in each send requests through their process's gate. The servers
// ban a key that sends while it is blocked. Everything runs on one scheduler, so a seed
// replays exactly.

import type { Clock } from '../../src/core/clock.js';
import type { HttpRequest, HttpResponse } from '../../src/http/types.js';
import { ANOTHER_CLIENT, RateGate } from '../../src/ratelimit/gate.js';
import { memoryStore, type StateStore } from '../../src/ratelimit/state-store.js';
import type { WaitLimits } from '../../src/ratelimit/wait-limits.js';
import { trials } from '../helpers/trials.js';

/** mulberry32: small, fast and good enough to pick cases from a seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws from seededRandom(seed): `between` a whole number from low to high, `pick` an item. */
export function seededChoices(seed: number) {
  const random = seededRandom(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return { random, between, pick };
}

/**
 * The seeds a simulation runs: the regressions (seeds that once failed, kept as they were
 * found), then 1..count in CI; `<NAME>_SEEDS` changes the count and `<NAME>_SEED_BASE` moves
 * the range, to explore others locally.
 */
export function seedsToRun(name: string, count: number, regressions: number[] = []): number[] {
  const seeds = Number(process.env[`${name}_SEEDS`] ?? trials(count, 25));
  const base = Number(process.env[`${name}_SEED_BASE`] ?? 0);
  return [...regressions, ...Array.from({ length: seeds }, (_, i) => base + i + 1)];
}

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/** Virtual time: sleeps are timers that fire in order when the program has nothing else to do. */
export class Scheduler implements Clock {
  private time: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(startMs: number) {
    this.time = startMs;
  }

  now = (): number => this.time;

  at(ms: number, fire: () => void): Timer {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fire };
    this.timers.push(timer);
    return timer;
  }

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(signal?.reason);
      };
      const timer = this.at(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  /** Runs until no timer is left; false if it took more than `maxSteps` (a livelock). */
  async run(maxSteps: number): Promise<boolean> {
    for (let step = 0; step < maxSteps; step++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.timers.length === 0) return true;
      let next = this.timers[0]!;
      for (const timer of this.timers) {
        if (timer.at < next.at || (timer.at === next.at && timer.seq < next.seq)) next = timer;
      }
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.at);
      next.fire();
    }
    return false;
  }
}

// ---- Servers -----------------------------------------------------------------------------

export interface LimitModel {
  /** Whether a request arriving at `now` is within the limit, without counting it. */
  allows(now: number): boolean;
  count(now: number): void;
  /** What the headers report at `now` (after counting): remaining, and Reset as a moment. */
  report(now: number): { limit: number; remaining: number; resetAtMs: number };
  /** The earliest moment from `now` at which a request would be allowed. */
  nextAllowed(now: number): number;
}

/** A fixed window; aligned: windows start at multiples of its length, else at a first request. */
export function fixedWindow(limit: number, lengthMs: number, aligned: boolean): LimitModel {
  let start = Number.NEGATIVE_INFINITY;
  let used = 0;
  const roll = (now: number) => {
    if (now < start + lengthMs) return;
    start = aligned ? Math.floor(now / lengthMs) * lengthMs : now;
    used = 0;
  };
  return {
    allows(now) {
      if (now >= start + lengthMs) return true;
      return used < limit;
    },
    count(now) {
      roll(now);
      used++;
    },
    report(now) {
      const open = now < start + lengthMs;
      const resetAtMs = open
        ? start + lengthMs
        : aligned
          ? (Math.floor(now / lengthMs) + 1) * lengthMs
          : now + lengthMs;
      return { limit, remaining: open ? limit - used : limit, resetAtMs };
    },
    nextAllowed(now) {
      return now >= start + lengthMs || used < limit ? now : start + lengthMs;
    },
  };
}

/** A sliding log: at most `limit` requests in any `lengthMs`. */
export function slidingWindow(limit: number, lengthMs: number): LimitModel {
  let log: number[] = [];
  const prune = (now: number) => (log = log.filter((t) => t > now - lengthMs));
  return {
    allows(now) {
      prune(now);
      return log.length < limit;
    },
    count(now) {
      prune(now);
      log.push(now);
    },
    report(now) {
      prune(now);
      const remaining = limit - log.length;
      // Reset: when the next request is allowed once Remaining is 0; the oldest's expiry.
      const resetAtMs = log.length === 0 ? now + lengthMs : log[0]! + lengthMs;
      return { limit, remaining, resetAtMs };
    },
    nextAllowed(now) {
      prune(now);
      return log.length < limit ? now : log[0]! + lengthMs;
    },
  };
}

/** A token bucket of `capacity`, refilled one token every `refillMs`. */
export function tokenBucket(capacity: number, refillMs: number): LimitModel {
  let tokens = capacity;
  let at = Number.NEGATIVE_INFINITY;
  const refill = (now: number) => {
    if (at === Number.NEGATIVE_INFINITY) at = now;
    const gained = Math.floor((now - at) / refillMs);
    if (gained > 0) {
      tokens = Math.min(capacity, tokens + gained);
      at = tokens === capacity ? now : at + gained * refillMs;
    }
  };
  return {
    allows(now) {
      refill(now);
      return tokens >= 1;
    },
    count(now) {
      refill(now);
      if (tokens === capacity) at = now;
      tokens--;
    },
    report(now) {
      refill(now);
      // Reset: when the next token comes.
      return {
        limit: capacity,
        remaining: tokens,
        resetAtMs: tokens === capacity ? now + refillMs : at + refillMs,
      };
    },
    nextAllowed(now) {
      refill(now);
      return tokens >= 1 ? now : at + refillMs;
    },
  };
}

/**
 * How the server writes its headers. X-RateLimit-Reset comes in the forms servers use: a Unix
 * time in seconds (the contract's, 'x-ratelimit'), seconds from now ('x-delta'), a Unix time
 * in milliseconds ('x-ms'), an hour in the past ('x-past'), words ('x-garbage'), or not at all
 * ('x-absent'); or the IETF
 * draft's fields, current ('ietf') and earlier ('ietf-earlier').
 */
export type HeaderStyle =
  | 'x-ratelimit'
  | 'x-delta'
  | 'x-ms'
  | 'x-past'
  | 'x-garbage'
  | 'x-absent'
  | 'ietf'
  | 'ietf-earlier';

/** The styles whose Reset tells when the window ends. */
export const RESET_READABLE: readonly HeaderStyle[] = [
  'x-ratelimit',
  'x-delta',
  'x-ms',
  'ietf',
  'ietf-earlier',
];

/**
 * A model with a daily quota besides its own limit: `perDay` a day, the day starting at
 * midnight UTC. The headers report the tighter of the two, the fewest remaining, as the
 * contract's "applicable limit".
 */
export function withDailyQuota(model: LimitModel, perDay: number): LimitModel {
  const day = fixedWindow(perDay, 86_400_000, true);
  return {
    allows: (now) => model.allows(now) && day.allows(now),
    count(now) {
      model.count(now);
      day.count(now);
    },
    report(now) {
      const own = model.report(now);
      const daily = day.report(now);
      return daily.remaining <= own.remaining ? daily : own;
    },
    nextAllowed: (now) => {
      const dayAt = day.nextAllowed(now);
      return dayAt > now ? Math.max(dayAt, model.nextAllowed(dayAt)) : model.nextAllowed(now);
    },
  };
}

export interface ServerRecord {
  sent: number;
  admitted: number;
  limited: number;
  /** Requests that arrived while the key was blocked after a 429: each bans the key. */
  sentWhileBlocked: number;
}

/**
 * A strict server: over the limit it answers 429 with Retry-After and blocks the key until
 * then; any request during the block bans the key for ten minutes.
 */
export function strictServer(
  model: LimitModel,
  options: { style: HeaderStyle; skewMs: number; now: () => number },
) {
  const record: ServerRecord = { sent: 0, admitted: 0, limited: 0, sentWhileBlocked: 0 };
  let blockedUntil = Number.NEGATIVE_INFINITY;
  const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

  function headers(now: number): HttpResponse['headers'] {
    const { limit, remaining, resetAtMs } = model.report(now);
    const date = new Date(Math.floor(now / 1000) * 1000).toUTCString();
    const untilReset = seconds(resetAtMs - now);
    if (options.style === 'ietf') {
      return {
        date,
        ratelimit: `"default";r=${remaining};t=${untilReset}`,
        'ratelimit-policy': `"default";q=${limit};w=60`,
      };
    }
    if (options.style === 'ietf-earlier') {
      return {
        date,
        'ratelimit-limit': String(limit),
        'ratelimit-remaining': String(remaining),
        'ratelimit-reset': String(untilReset),
      };
    }
    const reset = {
      'x-ratelimit': String(seconds(resetAtMs)),
      'x-delta': String(untilReset),
      'x-ms': String(Math.ceil(resetAtMs)),
      'x-past': String(seconds(now) - 3600),
      'x-garbage': 'soon',
      'x-absent': undefined,
    }[options.style];
    return {
      date,
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      ...(reset !== undefined && { 'x-ratelimit-reset': reset }),
    };
  }

  function handle(): HttpResponse {
    const now = options.now() + options.skewMs;
    record.sent++;
    if (now < blockedUntil) {
      record.sentWhileBlocked++;
      blockedUntil = now + 600_000;
      return {
        status: 429,
        headers: { ...headers(now), 'retry-after': '600' },
        text: '{"code":"key_banned"}',
      };
    }
    if (!model.allows(now)) {
      record.limited++;
      blockedUntil = model.nextAllowed(now);
      const retry = String(seconds(blockedUntil - now));
      blockedUntil = now + Number(retry) * 1000;
      return {
        status: 429,
        headers: { ...headers(now), 'retry-after': retry },
        text: '{"code":"rate_limited"}',
      };
    }
    model.count(now);
    record.admitted++;
    return { status: 200, headers: headers(now), text: '[]' };
  }

  return { record, handle };
}

// ---- The cases a seed stands for ---

export interface Case extends RunOptions {
  name: string;
}

/** The case a seed stands for: a server model, the clients, and the server's clock. */
export function caseFor(seed: number, forceStyle?: HeaderStyle): Case {
  const { between, pick } = seededChoices(seed * 7919);
  const limit = between(3, 40);
  const seconds = pick([1, 2, 5, 10, 30, 60]);
  const models: Array<[string, () => LimitModel]> = [
    [`fixed ${limit}/${seconds}s aligned`, () => fixedWindow(limit, seconds * 1000, true)],
    [`fixed ${limit}/${seconds}s`, () => fixedWindow(limit, seconds * 1000, false)],
    [`sliding ${limit}/${seconds}s`, () => slidingWindow(limit, seconds * 1000)],
    [`bucket ${limit} +1/${seconds * 100}ms`, () => tokenBucket(limit, seconds * 100)],
  ];
  const [modelName, model] = pick(models);
  // The drafts' Reset counts whole seconds from the answer, which cannot tell when a sliding
  // window's next slot frees to within a second; such servers speak X-RateLimit here.
  const picked = modelName.startsWith('sliding')
    ? 'x-ratelimit'
    : pick<HeaderStyle>(['x-ratelimit', 'x-ratelimit', 'ietf', 'ietf-earlier']);
  const style = forceStyle ?? picked;
  const skewMs = pick([0, 0, 0, between(-7200, 7200) * 1000 + between(0, 999)]);
  const processes = between(1, 4);
  const workersPerProcess = between(1, 8);
  const requests = between(5, 150);
  return {
    name: `${modelName}, ${processes}×${workersPerProcess} workers, ${requests} requests, ${style}, skew ${skewMs} ms`,
    seed,
    model,
    style,
    skewMs,
    processes,
    workersPerProcess,
    requests,
  };
}

// ---- A run -------------------------------------------------------------------------------

export interface RunOptions {
  seed: number;
  processes: number;
  workersPerProcess: number;
  requests: number;
  model: () => LimitModel;
  style: HeaderStyle;
  skewMs: number;
  maxWaitMs?: number;
  /** The limits on waits (wait-limits.ts), in place of maxWaitMs: a batch's, say. */
  waits?: WaitLimits;
  /**
   * Each process has its own share of the requests and tells its gate how many it has left,
   * as a batch does; without it, every worker takes from one count shared by all.
   */
  ownShares?: boolean;
  /** A loop of one-request processes, one after another, each starting up for a while first. */
  loop?: { lists: number; startUpMs: number };
  /** One short process (a `pets list` typed at a terminal) that starts this long into the run. */
  shortAtMs?: number;
  /**
   * Each process's own wall clock, where it is not the true one: this far off it, and, from
   * `stepAtMs` into the run, stepped by `stepMs` more (as NTP or a person sets a clock). The
   * monotonic clock of each moves at the true pace whatever its wall clock does.
   */
  processClocks?: Array<{ skewMs: number; stepAtMs?: number; stepMs?: number }>;
  /**
   * A server that refuses every request instead (a storm): with this status and, when given,
   * this Retry-After (as a function of the server's now, for dates), with or without its rate
   * headers (which then say budget is left).
   */
  storm?: { status: 429 | 503; retryAfter?: (serverNowMs: number) => string; headers: boolean };
  /**
   * Each process on a machine of its own, with no store between them: each keeps its own
   * state, and learns of the others only from the server's answers.
   */
  machines?: boolean;
  /**
   * The processes are machines sharing one store over a network (a Redis): each change takes
   * a round trip of up to `latencyMs` each way, and from `outage.fromMs` into the run until
   * `outage.untilMs` every change fails, as a store lost fails (redis-store.ts).
   */
  network?: { latencyMs: number; outage?: { fromMs: number; untilMs: number } };
}

export interface RunReport {
  finished: boolean;
  elapsedMs: number;
  /** The least time the server's limit allows for these requests (a greedy oracle). */
  leastMs: number;
  /** How many times the oracle had to wait. */
  leastWaits: number;
  server: ServerRecord;
  /** Sends made while the shared state knew of a block: the rule pets must never break. */
  sendsIntoKnownBlock: number;
  errors: string[];
  maxLatencyMs: number;
  /** When the loop's last process ended, and the least time the loop needs with no limit. */
  loopDoneMs?: number;
  loopLeastMs?: number;
  /** How long the short process of `shortAtMs` took, from its start to its answer. */
  shortLatencyMs?: number;
  /** Per process, how often it said another client uses the key (gate.ts's ANOTHER_CLIENT). */
  anotherClientNotices: number[];
  /** Requests sent once the store's outage had begun, by processes that had seen it fail. */
  sentAfterLoss: number;
}

export const START = Date.parse('2026-11-23T10:00:07.300Z');

/** The answer of a server that refuses everything (RunOptions.storm). */
function stormAnswer(storm: NonNullable<RunOptions['storm']>, serverNowMs: number): HttpResponse {
  const retryAfter = storm.retryAfter?.(serverNowMs);
  return {
    status: storm.status,
    headers: {
      date: new Date(Math.floor(serverNowMs / 1000) * 1000).toUTCString(),
      ...(retryAfter !== undefined && { 'retry-after': retryAfter }),
      ...(storm.headers && {
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '95',
        'x-ratelimit-reset': String(Math.ceil(serverNowMs / 1000) + 60),
      }),
    },
    text: `{"code":"refused","status":${storm.status}}`,
  };
}
const MAX_ONE_WAY_MS = 25;

export async function simulate(options: RunOptions): Promise<RunReport> {
  const random = seededRandom(options.seed);
  const clock = new Scheduler(START);
  const server = strictServer(options.model(), {
    style: options.style,
    skewMs: options.skewMs,
    now: clock.now,
  });
  const store = options.network
    ? networkStore(memoryStore(), clock, random, options.network)
    : memoryStore();
  const stores: Array<ReturnType<typeof memoryStore>> = [];
  const storeOf = (p: number) =>
    options.machines && p >= 0 ? (stores[p] ??= memoryStore()) : store;
  const anotherClientNotices = Array<number>(options.processes).fill(0);
  let sendsIntoKnownBlock = 0;
  let maxLatencyMs = 0;
  const errors: string[] = [];

  const lost = new Set<number>();
  let sentAfterLoss = 0;
  const send = (request: HttpRequest, p = -1): Promise<HttpResponse> => {
    if (lost.has(p)) sentAfterLoss++;
    const state = storeOf(p).read();
    // The state's moments are on the server's clock.
    const serverNow = clock.now() + options.skewMs;
    if ((state.cooldownUntilMs ?? Number.NEGATIVE_INFINITY) > serverNow) sendsIntoKnownBlock++;
    const there = 1 + Math.floor(random() * MAX_ONE_WAY_MS);
    const back = 1 + Math.floor(random() * MAX_ONE_WAY_MS);
    maxLatencyMs = Math.max(maxLatencyMs, there + back);
    return new Promise((resolve, reject) => {
      request.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      clock.at(there, () => {
        const response = options.storm
          ? stormAnswer(options.storm, clock.now() + options.skewMs)
          : server.handle();
        if (options.storm) server.record.sent++;
        clock.at(back, () => resolve(response));
      });
    });
  };

  const request = async (gate: RateGate, url = 'http://sim/v1/pets') => {
    try {
      const response = await gate.send({ method: 'GET', url, headers: {} });
      if (response.status !== 200) errors.push(`status ${response.status}`);
    } catch (error) {
      errors.push((error as Error).message);
    }
  };
  const clockOf = (p: number): Clock => {
    const own = options.processClocks?.[p];
    if (!own) return clock;
    const wall = () =>
      clock.now() +
      own.skewMs +
      (own.stepAtMs !== undefined && clock.now() - START >= own.stepAtMs ? (own.stepMs ?? 0) : 0);
    return { now: wall, sleep: clock.sleep, monotonic: clock.now };
  };
  const newGate = (p = -1) =>
    new RateGate({
      send: (request) => send(request, p),
      clock: clockOf(p),
      random,
      maxWaitMs: options.maxWaitMs ?? 3_600_000,
      ...options.waits,
      store: storeOf(p),
      claimMs: 35_000,
      warn: (text) => {
        if (text === ANOTHER_CLIENT && p >= 0) anotherClientNotices[p]!++;
      },
      trace: (line) => {
        if (line.startsWith('the rate store ')) lost.add(p);
      },
    });

  let next = 0;
  const workers: Array<Promise<void>> = [];
  for (let p = 0; p < options.processes; p++) {
    const gate = newGate(p);
    const processWorkers: Array<Promise<void>> = [];
    let left =
      Math.ceil((options.requests * (p + 1)) / options.processes) -
      Math.ceil((options.requests * p) / options.processes);
    for (let w = 0; w < options.workersPerProcess; w++) {
      processWorkers.push(
        (async () => {
          for (;;) {
            if (options.ownShares) {
              if (left <= 0) return;
              left--;
              gate.expect(left);
              await request(gate);
              continue;
            }
            if (next >= options.requests) return;
            next++;
            try {
              const response = await gate.send({
                method: 'GET',
                url: 'http://sim/v1/pets',
                headers: {},
              });
              if (response.status !== 200) errors.push(`status ${response.status}`);
            } catch (error) {
              errors.push((error as Error).message);
            }
          }
        })(),
      );
    }
    // A process ends as main ends pets: what its gate holds back goes to the shared state.
    workers.push(Promise.all(processWorkers).then(() => gate.finish()));
  }
  let loopDoneMs: number | undefined;
  const loop = options.loop;
  if (loop) {
    workers.push(
      (async () => {
        // Its first process starts with the others; each next one starts up after it ends.
        for (let i = 0; i < loop.lists; i++) {
          if (i > 0) await clock.sleep(loop.startUpMs);
          await request(newGate(), 'http://sim/v1/list');
        }
        loopDoneMs = clock.now() - START;
      })(),
    );
  }
  let shortLatencyMs: number | undefined;
  const shortAtMs = options.shortAtMs;
  if (shortAtMs !== undefined) {
    workers.push(
      (async () => {
        await clock.sleep(shortAtMs);
        const startedAt = clock.now();
        await request(newGate(), 'http://sim/v1/list');
        shortLatencyMs = clock.now() - startedAt;
      })(),
    );
  }
  const finished = await clock.run(200_000);
  await Promise.race([Promise.all(workers), new Promise((r) => setImmediate(r))]);

  // The oracle: a client that knows the server's clock and sends each request the moment
  // the headers could let it know the server admits it, and whose requests arrive 1 ms after
  // they leave. Headers count whole seconds: X-RateLimit-Reset names a whole second of the
  // server's clock, the drafts' fields a whole number of seconds from the answer.
  const oracle = options.model();
  // Its first request arrives when the simulated network lets it at the latest, as a real
  // client's may: the first window may end a few ms after the run starts.
  let t = START + options.skewMs + MAX_ONE_WAY_MS;
  let leastWaits = 0;
  const total = options.requests + (loop?.lists ?? 0) + (shortAtMs === undefined ? 0 : 1);
  for (let i = 0; i < total; i++) {
    const allowed = oracle.nextAllowed(t);
    if (allowed > t) {
      leastWaits++;
      t =
        (options.style === 'x-ratelimit' || options.style === 'x-ms'
          ? Math.ceil(allowed / 1000) * 1000
          : t + Math.ceil((allowed - t) / 1000) * 1000) + 1;
    }
    oracle.count(t);
    // With a loop, the first request learns the window and the others follow its answer, as
    // the rules say, a round trip later: a first window that ends sooner is not the oracle's.
    if (loop && i === 0) t += 2 * MAX_ONE_WAY_MS;
  }
  return {
    finished,
    elapsedMs: clock.now() - START,
    leastMs: t - (START + options.skewMs),
    leastWaits,
    server: server.record,
    sendsIntoKnownBlock,
    errors,
    maxLatencyMs,
    ...(loop && {
      loopDoneMs,
      loopLeastMs: loop.lists * (loop.startUpMs + 2),
    }),
    ...(shortLatencyMs !== undefined && { shortLatencyMs }),
    anotherClientNotices,
    sentAfterLoss,
  };
}

/**
 * `inner` behind a network: each change goes after a random delay, is made there in one step
 * (as the store's compare-and-set makes it), and its answer comes back after another. During
 * the outage it fails instead, as a lost store's change fails.
 */
function networkStore(
  inner: StateStore,
  clock: Scheduler,
  random: () => number,
  network: NonNullable<RunOptions['network']>,
): StateStore {
  const delay = () => 1 + Math.floor(random() * network.latencyMs);
  const down = () =>
    network.outage !== undefined &&
    clock.now() - START >= network.outage.fromMs &&
    clock.now() - START < network.outage.untilMs;
  return {
    update: (change) =>
      new Promise((resolve, reject) => {
        clock.at(delay(), () => {
          if (down()) return reject(new Error('the connection was closed'));
          inner.update(change).then((result) => clock.at(delay(), () => resolve(result)), reject);
        });
      }),
    read: inner.read,
    shared: 'redis://sim-store:6379',
  };
}
