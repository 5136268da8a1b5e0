import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../src/http/types.js';
import { RateGate } from '../../src/ratelimit/gate.js';
import { memoryStore, type StateStore } from '../../src/ratelimit/state-store.js';

// Every change of the shared state is a locked write of a file that all pets processes on
// the key read: these count them.

/** A store that counts the changes that alter the state, as the file store writes only those. */
function countingStore(): StateStore & { writes: number } {
  const inner = memoryStore();
  const store: StateStore & { writes: number } = {
    writes: 0,
    read: () => inner.read(),
    update(change) {
      const before = JSON.stringify(inner.read());
      const result = inner.update(change);
      if (JSON.stringify(inner.read()) !== before) store.writes++;
      return result;
    },
  };
  return store;
}

/** A server whose window grants `limit` requests and resets in a minute. */
function server(limit: number, now: () => number) {
  let remaining = limit;
  const resetS = Math.ceil((now() + 60_000) / 1000);
  return async (_request: HttpRequest): Promise<HttpResponse> => {
    await new Promise((resolve) => setImmediate(resolve));
    remaining--;
    return {
      status: 201,
      headers: {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(resetS),
      },
      text: '{}',
    };
  };
}

async function batch(limit: number, requests: number, announce = false) {
  const now = () => 1_700_000_000_000;
  const store = countingStore();
  const gate = new RateGate({
    send: server(limit, now),
    // Only the first answer is waited for (it learns the window); the clock stands still.
    clock: { now, sleep: () => new Promise<void>((resolve) => setImmediate(resolve)) },
    random: () => 0.5,
    maxWaitMs: 0,
    claimMs: 10_000,
    store,
  });
  const request: HttpRequest = { method: 'POST', url: 'http://127.0.0.1/v1/pets', headers: {} };
  // Eight workers, as a batch has with no known limit.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next++ < requests) {
        // As add --file does: how many records are still to come.
        if (announce) gate.expect(requests - next);
        await gate.send(request);
      }
    }),
  );
  await gate.finish();
  return { writes: store.writes, state: store.read() };
}

describe('writes of the shared state', () => {
  it('without a word of what is coming, two writes a request: its claim, then its answer', async () => {
    const { writes, state } = await batch(300, 100);
    // And one for the workers that waited for the first answer, saying how many they are.
    expect(writes).toBeLessThanOrEqual(2 * 100 + 1);
    // Every answer was written: nothing left in flight, the server's count kept.
    expect(Object.keys(state.inFlight ?? {})).toEqual([]);
    expect(state.quota?.remaining).toBe(200);
  });

  it('reserves ahead for the records a batch says are coming: claims in groups, under 1.25 writes a request', async () => {
    const { writes, state } = await batch(300, 100, true);
    // One write per answer, and one per group of up to 1 + MAX_RESERVED_AHEAD claims.
    expect(writes).toBeLessThan(125);
    expect(Object.keys(state.inFlight ?? {})).toEqual([]);
    expect(state.quota?.remaining).toBe(200);
  });

  it('near the end of the budget, writes every answer at once: two writes a request', async () => {
    const { writes, state } = await batch(24, 24);
    expect(writes).toBeGreaterThanOrEqual(2 * 24 - 1);
    expect(Object.keys(state.inFlight ?? {})).toEqual([]);
    expect(state.quota?.remaining).toBe(0);
  });

  it('with the changes of several requests sent together (a shared store), claims ahead no more than is left to send, and says no more', async () => {
    const now = () => 1_700_000_000_000;
    const requests = 20;
    let answered = 0;
    // What the process holds (claims) and says it still needs (its word), past what it has
    // left to send, at the worst moment.
    let excess = Number.NEGATIVE_INFINITY;
    const inner = memoryStore();
    const queued: Array<() => void> = [];
    // As redis-store.ts sends them: the changes asked for while none is out go together, on
    // a later turn, each on the state the ones before it left.
    const store: StateStore = {
      read: () => inner.read(),
      update: (change) =>
        new Promise((resolve, reject) => {
          queued.push(() => {
            inner.update(change).then(resolve, reject);
            const state = inner.read();
            const claims = Object.keys(state.inFlight ?? {}).length;
            const word = Object.values(state.demand ?? {}).reduce((sum, d) => sum + d.count, 0);
            excess = Math.max(excess, claims + word - (requests - answered));
          });
          if (queued.length > 1) return;
          setImmediate(() => queued.splice(0).forEach((run) => run()));
        }),
    };
    const gate = new RateGate({
      send: server(300, now),
      clock: { now, sleep: () => new Promise<void>((resolve) => setImmediate(resolve)) },
      random: () => 0.5,
      maxWaitMs: 0,
      claimMs: 10_000,
      store,
    });
    const request: HttpRequest = { method: 'POST', url: 'http://127.0.0.1/v1/pets', headers: {} };
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < requests) {
          gate.expect(requests - next);
          await gate.send(request);
          answered++;
        }
      }),
    );
    await gate.finish();
    // Each of eight requests asking at once took claims ahead for the others, and said the
    // others' needs again: claims and word were 63 more than the 20 requests had left.
    expect(excess).toBeLessThanOrEqual(0);
    const state = store.read();
    expect(state.demand).toBeUndefined();
    expect(Object.keys(state.inFlight ?? {})).toEqual([]);
    expect(state.quota?.remaining).toBe(300 - requests);
  });
});
