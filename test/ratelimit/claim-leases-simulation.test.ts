import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import type { HttpResponse } from '../../src/http/types.js';
import { CLAIM_LEASE_MS, RateGate, type ProcessView } from '../../src/ratelimit/gate.js';
import { memoryStore } from '../../src/ratelimit/state-store.js';
import { fixedWindow, Scheduler, START, strictServer } from './simulation.js';

// The claims of a process that another cannot see (another PID namespace, as in a container
// sharing the state folder), on virtual time. Its first request goes unplaced (it has read
// no Date yet), which time never lapses: the process renews a lease while it is in flight,
// and the other takes the claim as ended only once it has watched the lease unrenewed for
// CLAIM_LEASE_MS on its own monotonic clock. The server admits one request a minute, so a
// claim voided while its request is in flight lets the other send a second: a 429.

type Seen = ReturnType<ProcessView['see']>;

interface Trial {
  /** How A's process looks from B's. */
  seen: Seen;
  /** A's request: answered after this long, or never (its process died). */
  answerAfterMs?: number;
  /** A renews its lease until this moment (a crash), or as long as it runs. */
  renewsUntilMs?: number;
  /** A never renews (a process whose event loop is held up, or that is stopped). */
  neverRenews?: boolean;
}

async function run(trial: Trial) {
  const clock = new Scheduler(START);
  const store = memoryStore();
  const server = strictServer(fixedWindow(1, 60_000, true), {
    style: 'x-ratelimit',
    skewMs: 0,
    now: clock.now,
  });
  const sent: Array<{ who: string; at: number }> = [];
  let answeredA: number | undefined;
  /** Each process's own clocks: its wall clock off the true one, its monotonic clock its own. */
  const clockOf = (wallOffMs: number, monotonicOffMs: number): Clock => ({
    now: () => clock.now() + wallOffMs,
    sleep: clock.sleep,
    monotonic: () => clock.now() - START + monotonicOffMs,
  });
  const everyOf =
    (until: () => boolean): ProcessView['every'] =>
    (everyMs, renew) => {
      let stopped = false;
      const tick = () => {
        if (stopped || !until()) return;
        renew();
        clock.at(everyMs, tick);
      };
      clock.at(everyMs, tick);
      return () => (stopped = true);
    };
  const gate = (who: string, processes: ProcessView, own: Clock) =>
    new RateGate({
      send: () => {
        sent.push({ who, at: clock.now() - START });
        if (who === 'A' && trial.answerAfterMs === undefined) return new Promise(() => {});
        const answer = server.handle();
        const after = who === 'A' ? trial.answerAfterMs! : 20;
        return new Promise<HttpResponse>((resolve) =>
          clock.at(after, () => {
            if (who === 'A') answeredA = clock.now() - START;
            resolve(answer);
          }),
        );
      },
      clock: own,
      random: Math.random,
      maxWaitMs: 3_600_000,
      store,
      claimMs: 35_000,
      processes,
    });
  // The same pid in two PID namespaces: neither can see the other.
  const a = gate(
    'A',
    {
      self: '7.spaceA',
      see: () => 'unseen',
      every: everyOf(
        () => !trial.neverRenews && clock.now() - START < (trial.renewsUntilMs ?? Infinity),
      ),
    },
    clockOf(0, 5_000_000),
  );
  const b = gate(
    'B',
    { self: '7.spaceB', see: (name) => (name === '7.spaceA' ? trial.seen : 'alive') },
    // Its wall clock 50 s ahead, its monotonic clock from another boot.
    clockOf(50_000, 123),
  );
  const request = (g: RateGate) =>
    g.send({ method: 'GET', url: 'http://sim/v1/pets', headers: {} });
  const first = request(a).catch(() => undefined);
  const second = (async () => {
    await clock.sleep(100);
    return request(b);
  })();
  const finished = await clock.run(50_000);
  const answer = await Promise.race([
    second,
    new Promise<undefined>((r) => setImmediate(() => r(undefined))),
  ]);
  void first;
  return { sent, answeredA, server: server.record, finished, answer };
}

describe('claims of a process another cannot see, on virtual time', () => {
  it('a live one in flight for 25 s, renewing its lease: the other waits for its answer, no 429', async () => {
    const result = await run({ seen: 'unseen', answerAfterMs: 25_000 });
    const sendB = result.sent.find((s) => s.who === 'B')!;
    expect(result.answeredA).toBe(25_000);
    expect(sendB.at).toBeGreaterThanOrEqual(result.answeredA!);
    expect(result.server.limited).toBe(0);
    expect(result.server.sentWhileBlocked).toBe(0);
  });

  it('one that stops renewing (it died in its container): voided after one lease, not never', async () => {
    const result = await run({ seen: 'unseen', renewsUntilMs: 2_000 });
    const sendB = result.sent.find((s) => s.who === 'B');
    expect(sendB, JSON.stringify(result)).toBeDefined();
    // Renewed last at 2 s: watched unchanged from then for a lease, then voided.
    expect(sendB!.at).toBeGreaterThanOrEqual(2_000 + CLAIM_LEASE_MS - 1_000);
    expect(sendB!.at).toBeLessThanOrEqual(2_000 + CLAIM_LEASE_MS + 1_000);
    expect(result.answer?.status).toBe(200);
    expect(result.server.limited).toBe(0);
  });

  it('one that never renews is taken as ended after one lease from first sight', async () => {
    const result = await run({ seen: 'unseen', neverRenews: true, answerAfterMs: 25_000 });
    const sendB = result.sent.find((s) => s.who === 'B')!;
    expect(sendB.at).toBeGreaterThanOrEqual(100 + CLAIM_LEASE_MS);
    expect(sendB.at).toBeLessThan(100 + CLAIM_LEASE_MS + 500);
  });

  it('one seen gone in this PID namespace: voided at once', async () => {
    const result = await run({ seen: 'gone' });
    const sendB = result.sent.find((s) => s.who === 'B')!;
    expect(sendB.at).toBeLessThan(200);
  });

  it('one seen alive in this PID namespace: never voided while in flight, renewed or not', async () => {
    const result = await run({ seen: 'alive', neverRenews: true, answerAfterMs: 25_000 });
    const sendB = result.sent.find((s) => s.who === 'B')!;
    expect(sendB.at).toBeGreaterThanOrEqual(25_000);
    expect(result.server.limited).toBe(0);
  });
});
