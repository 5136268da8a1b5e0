import { describe, expect, it } from 'vitest';
import {
  EMPTY_STATE,
  MAX_REFUSALS,
  refusedTooOften,
  type Answer,
  MAX_RESERVED_AHEAD,
  ampleBudget,
  anotherClient,
  decideSend,
  decideSends,
  observeAnswer,
  releaseSend,
  returnUnsent,
  type GateState,
} from '../../src/ratelimit/policy.js';
import { MAX_ATTEMPTS, retryBackoffMs, retryDecision } from '../../src/ratelimit/retry-policy.js';

const NOW = 1_800_000_000_000;
const CLAIM = NOW + 35_000;
const window = (remaining: number, resetInMs = 30_000, limit = 60) => ({
  limit,
  remaining,
  resetAtMs: NOW + resetInMs,
});
const never = () => 0;

/** Sends `id` at NOW, expecting the policy to let it go. */
function send(state: GateState, id: string): GateState {
  const decision = decideSend(state, NOW, id, CLAIM);
  expect(decision.go).toBe(true);
  return decision.state;
}

describe('decideSend', () => {
  it('with nothing known, lets one request go to learn the window and holds the rest', () => {
    const first = send(EMPTY_STATE, 'a');
    const second = decideSend(first, NOW, 'b', CLAIM);
    expect(second).toMatchObject({ go: false, reason: 'learning', untilMs: CLAIM });
  });

  it('spends a known budget at once, with no spacing, down to zero', () => {
    let state: GateState = { ...EMPTY_STATE, quota: window(3) };
    for (const id of ['a', 'b', 'c']) state = send(state, id);
    expect(state.quota?.remaining).toBe(0);
    expect(decideSend(state, NOW, 'd', CLAIM)).toMatchObject({
      go: false,
      reason: 'quota',
      untilMs: NOW + 30_000,
    });
  });

  it('holds every request during a cooldown, whatever budget is known', () => {
    const state: GateState = { ...EMPTY_STATE, quota: window(50), cooldownUntilMs: NOW + 5_000 };
    expect(decideSend(state, NOW, 'a', CLAIM)).toMatchObject({
      go: false,
      reason: 'cooldown',
      untilMs: NOW + 5_000,
    });
    expect(decideSend(state, NOW + 5_000, 'a', CLAIM).go).toBe(true);
  });

  it('after Reset, lets one request learn the new window first', () => {
    const state: GateState = { ...EMPTY_STATE, quota: window(0, 1_000) };
    const after = decideSend(state, NOW + 1_000, 'a', CLAIM);
    expect(after.go).toBe(true);
    expect(decideSend(after.state, NOW + 1_000, 'b', CLAIM).go).toBe(false);
  });

  it('frees a learning claim when its request fails, and forgets one whose process died', () => {
    const probing = send(EMPTY_STATE, 'a');
    expect(decideSend(releaseSend(probing, 'a'), NOW, 'b', CLAIM).go).toBe(true);
    expect(decideSend(probing, CLAIM, 'b', CLAIM + 35_000).go).toBe(true);
  });

  it('lets a server that states no limit be used freely, once a ramp of halving gaps finds none', () => {
    let state = observeAnswer(send(EMPTY_STATE, 'a'), 'a', NOW, { status: 200 }, never);
    expect(state.unlimited).toBe(true);
    const gaps: number[] = [];
    let now = NOW;
    for (let i = 0; state.pace; i++) {
      const held = decideSend(state, now, `r${i}`, CLAIM);
      if (!held.go) {
        expect(held.reason).toBe('pacing');
        gaps.push(held.untilMs - now);
        now = held.untilMs;
        continue;
      }
      state = observeAnswer(held.state, `r${i}`, now, { status: 200 }, never);
    }
    expect(gaps).toEqual([200, 100, 50, 25, 13, 7, 4]);
    for (const id of ['b', 'c', 'd']) state = send(state, id);
  });
});

describe('decideSends: claims taken ahead', () => {
  const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'];
  const demand = { owner: 'p', count: 20 };

  it('with an ample window, reserves the next requests in the same change', () => {
    const state = { ...EMPTY_STATE, quota: window(100) };
    const decision = decideSends(state, NOW, ids, CLAIM, demand);
    expect(decision.go).toBe(true);
    expect(decision.reserved).toEqual(ids.slice(1, 1 + MAX_RESERVED_AHEAD));
    expect(decision.state.quota?.remaining).toBe(100 - 1 - MAX_RESERVED_AHEAD);
    expect(Object.keys(decision.state.inFlight ?? {})).toHaveLength(1 + MAX_RESERVED_AHEAD);
  });

  it('stops taking ahead where the budget stops being ample', () => {
    const decision = decideSends({ ...EMPTY_STATE, quota: window(35) }, NOW, ids, CLAIM, demand);
    // 35, 34, 33 and 32 left are ample: the first request and three ahead.
    expect(decision.reserved).toHaveLength(3);
    expect(decision.state.quota?.remaining).toBe(31);
  });

  it.each([
    ['a small budget', { quota: window(31) }],
    ['a window about to end', { quota: window(100, 2_000) }],
    ['a short process on the key', { quota: window(100), shortSeenAtMs: NOW - 100 }],
    ['a cooldown', { quota: window(100), cooldownUntilMs: NOW + 1_000 }],
  ])('takes nothing ahead with %s', (_what, known) => {
    const state = { ...EMPTY_STATE, ...known };
    expect(ampleBudget(state, NOW)).toBe(false);
    const decision = decideSends(state, NOW, ids, CLAIM, demand);
    expect('reserved' in decision ? decision.reserved : []).toEqual([]);
  });

  it('takes no more than the process says it will send', () => {
    const decision = decideSends({ ...EMPTY_STATE, quota: window(100) }, NOW, ids, CLAIM, {
      owner: 'p',
      count: 3,
    });
    expect(decision.reserved).toEqual(['b', 'c']);
  });

  it('gives an unused claim back to the window, as never sent', () => {
    const taken = decideSends({ ...EMPTY_STATE, quota: window(100) }, NOW, ids, CLAIM, demand);
    const back = returnUnsent(taken.state, 'b');
    expect(back.quota?.remaining).toBe(taken.state.quota!.remaining + 1);
    expect(back.inFlight?.b).toBeUndefined();
    expect(back.ended ?? 0).toBe(taken.state.ended ?? 0);
    expect(returnUnsent(back, 'b')).toBe(back);
  });
});

describe('observeAnswer', () => {
  it('takes the window a first answer reports, less what is still in flight', () => {
    let state = send(EMPTY_STATE, 'probe');
    state = observeAnswer(state, 'probe', NOW, { status: 200, window: window(10) }, never);
    state = send(send(state, 'a'), 'b');
    expect(state.quota?.remaining).toBe(8);
  });

  it('a fresh answer: Remaining less what is in flight, which may be more than the count kept', () => {
    let state: GateState = { ...EMPTY_STATE, quota: window(2) };
    state = send(send(state, 'a'), 'b');
    // The server says 7 left after a: a sliding window freed slots. b is still in flight.
    state = observeAnswer(state, 'a', NOW, { status: 200, window: window(7) }, never);
    expect(state.quota?.remaining).toBe(6);
  });

  it('a stale answer (others ended while it was out) cannot raise what may be sent', () => {
    let state: GateState = { ...EMPTY_STATE, quota: window(2) };
    state = send(send(state, 'a'), 'b');
    state = observeAnswer(state, 'b', NOW, { status: 200, window: window(0) }, never);
    // a reached the server before b, and says 1 left, though b has taken it since.
    state = observeAnswer(state, 'a', NOW, { status: 200, window: window(1) }, never);
    expect(state.quota?.remaining).toBe(0);
  });

  it('keeps the later Reset, so that a rounded one is never waited out too early', () => {
    let state: GateState = { ...EMPTY_STATE, quota: window(5, 10_000) };
    state = send(state, 'a');
    state = observeAnswer(state, 'a', NOW, { status: 200, window: window(4, 9_000) }, never);
    expect(state.quota?.resetAtMs).toBe(NOW + 10_000);
  });

  it('after a 429, holds the key for the largest wait the server gave, and never less', () => {
    let state = send({ ...EMPTY_STATE, quota: window(5) }, 'a');
    state = observeAnswer(state, 'a', NOW, { status: 429, retryAfterMs: 30_000, code: 'x' }, never);
    expect(state).toMatchObject({ cooldownUntilMs: NOW + 30_000, cooldownCode: 'x' });
    // The window said 4 were left: it was wrong, and is learnt again after the wait.
    expect(state.quota).toBeUndefined();
    const longer = { ...send(EMPTY_STATE, 'b'), cooldownUntilMs: NOW + 60_000 };
    state = observeAnswer(longer, 'b', NOW, { status: 429, retryAfterMs: 1_000 }, never);
    expect(state.cooldownUntilMs).toBe(NOW + 60_000);
  });

  it('after a 429 with no wait given: until Reset if known, else a growing backoff', () => {
    let state = send({ ...EMPTY_STATE, quota: window(1, 7_000) }, 'a');
    expect(observeAnswer(state, 'a', NOW, { status: 429 }, never).cooldownUntilMs).toBe(
      NOW + 7_000,
    );
    state = send(EMPTY_STATE, 'a');
    const once = observeAnswer(state, 'a', NOW, { status: 429 }, () => 1);
    expect(once.cooldownUntilMs).toBe(NOW + 1_250);
    expect(once.refusals).toMatchObject({ count: 1, sinceMs: NOW, lastWaitMs: 1_250 });
    const streak = { count: 3, sinceMs: NOW - 9_000, lastWaitMs: 8_000, status: 429, ended: 0 };
    const many = observeAnswer(
      send({ ...EMPTY_STATE, refusals: { ...streak, status: 429 } }, 'b'),
      'b',
      NOW,
      { status: 429 },
      () => 1,
    );
    expect(many.cooldownUntilMs).toBe(NOW + 20_000);
    expect(many.refusals).toMatchObject({ count: 4, sinceMs: NOW - 9_000, lastWaitMs: 20_000 });
  });

  it('ends a streak of refusals on any other answer but a gateway error', () => {
    const refusals = { count: 3, sinceMs: NOW, lastWaitMs: 4_000, status: 429 as const, ended: 0 };
    const state = send({ ...EMPTY_STATE, refusals }, 'a');
    expect(observeAnswer(state, 'a', NOW, { status: 200 }, never).refusals).toBeUndefined();
    expect(observeAnswer(state, 'a', NOW, { status: 404 }, never).refusals).toBeUndefined();
    expect(observeAnswer(state, 'a', NOW, { status: 502 }, never).refusals).toEqual(refusals);
  });
});

describe('refusals in a row (429 or 503 the quota does not explain)', () => {
  const refuse = (state: GateState, id: string, answer: Answer) =>
    observeAnswer(send(state, id), id, NOW, answer, () => 0);

  it.each([0, undefined])(
    'Retry-After %s (0, past or unreadable) waits at least a second, doubling',
    (retryAfterMs) => {
      let state: GateState = EMPTY_STATE;
      const waits: number[] = [];
      for (let i = 0; i < 4; i++) {
        state = refuse({ ...state, cooldownUntilMs: undefined }, `r${i}`, {
          status: 429,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        });
        waits.push(state.cooldownUntilMs! - NOW);
      }
      expect(waits).toEqual([1_000, 2_000, 4_000, 8_000]);
      expect(state.refusals?.count).toBe(4);
    },
  );

  it("waits at least the server's Retry-After, and double the last wait", () => {
    let state = refuse(EMPTY_STATE, 'a', { status: 503, retryAfterMs: 30_000 });
    expect(state.cooldownUntilMs).toBe(NOW + 30_000);
    state = refuse({ ...state, cooldownUntilMs: undefined }, 'b', {
      status: 503,
      retryAfterMs: 1_000,
    });
    expect(state.cooldownUntilMs).toBe(NOW + 60_000);
    expect(state.refusals).toMatchObject({ count: 2, status: 503 });
  });

  it('a 429 whose headers say budget is left is a refusal, and unlearns the window', () => {
    const state = refuse({ ...EMPTY_STATE, quota: window(50) }, 'a', {
      status: 429,
      retryAfterMs: 1_000,
      window: window(40),
    });
    expect(state.refusals?.count).toBe(1);
    expect(state.quota).toBeUndefined();
    // After the wait, one request learns the window again; the others follow its answer.
    const later = { ...state, cooldownUntilMs: undefined };
    const first = decideSend(later, NOW, 'b', CLAIM);
    expect(first.go).toBe(true);
    expect(decideSend(first.state, NOW, 'c', CLAIM)).toMatchObject({
      go: false,
      reason: 'learning',
    });
  });

  it('a used-up window is the quota, not a refusal: its 429 never counts', () => {
    const state = refuse({ ...EMPTY_STATE, quota: window(1) }, 'a', {
      status: 429,
      retryAfterMs: 30_000,
      window: window(0),
    });
    expect(state.refusals).toBeUndefined();
    expect(state.cooldownUntilMs).toBe(NOW + 30_000);
  });

  it('answers to requests sent before a refusal was known are that refusal again', () => {
    let state = send(send({ ...EMPTY_STATE, quota: window(5) }, 'a'), 'b');
    state = observeAnswer(state, 'a', NOW, { status: 429, retryAfterMs: 1_000 }, never);
    state = observeAnswer(state, 'b', NOW, { status: 429, retryAfterMs: 1_000 }, never);
    expect(state.refusals?.count).toBe(1);
  });

  it(`stops after ${MAX_REFUSALS} in a row`, () => {
    let state: GateState = EMPTY_STATE;
    for (let i = 1; i <= MAX_REFUSALS; i++) {
      const before = { ...state, cooldownUntilMs: undefined };
      state = refuse(before, `r${i}`, { status: 429 });
      expect(refusedTooOften(before, state)).toBe(i === MAX_REFUSALS);
    }
  });

  it('headers that vanish after a 429 leave the limit unknown: one at a time, paced', () => {
    let state = refuse(EMPTY_STATE, 'a', { status: 429, retryAfterMs: 1_000 });
    state = { ...state, cooldownUntilMs: undefined };
    state = observeAnswer(send(state, 'b'), 'b', NOW, { status: 200 }, never);
    expect(state.unlimited).toBeUndefined();
    expect(decideSend(state, NOW, 'c', CLAIM)).toMatchObject({ go: false, reason: 'pacing' });
    const first = decideSend(state, NOW + 200, 'c', CLAIM);
    expect(first.go).toBe(true);
    // One at a time: the next waits for the answer, then for the pace.
    expect(decideSend(first.state, NOW + 200, 'd', CLAIM)).toMatchObject({
      go: false,
      reason: 'learning',
    });
    const answered = observeAnswer(first.state, 'c', NOW + 210, { status: 200 }, never);
    expect(decideSend(answered, NOW + 210, 'd', CLAIM)).toMatchObject({
      go: false,
      reason: 'pacing',
      untilMs: NOW + 300,
    });
    // A server that never showed a limit states none.
    const fresh = observeAnswer(send(EMPTY_STATE, 'e'), 'e', NOW, { status: 200 }, never);
    expect(fresh.unlimited).toBe(true);
  });
});

describe('retryDecision', () => {
  it.each([
    ['GET', { kind: 'response', status: 429 }, 'rate-limited'],
    ['POST', { kind: 'response', status: 429 }, 'rate-limited'],
    ['GET', { kind: 'response', status: 502 }, 'retry'],
    ['GET', { kind: 'response', status: 503 }, 'rate-limited'],
    ['GET', { kind: 'response', status: 504 }, 'retry'],
    ['GET', { kind: 'response', status: 500 }, 'final'],
    ['GET', { kind: 'response', status: 404 }, 'final'],
    ['POST', { kind: 'response', status: 503 }, 'final'],
    ['GET', { kind: 'network', mayHaveArrived: true }, 'retry'],
    ['POST', { kind: 'network', mayHaveArrived: false }, 'retry'],
    ['POST', { kind: 'network', mayHaveArrived: true }, 'final'],
  ] as const)('%s after %j: %s', (method, outcome, decision) => {
    expect(retryDecision(method, outcome)).toBe(decision);
  });

  it('backs off with full jitter, bounded', () => {
    expect(retryBackoffMs(1, () => 0)).toBe(50);
    expect(retryBackoffMs(1, () => 1)).toBe(300);
    expect(retryBackoffMs(3, () => 1)).toBe(1_050);
    expect(retryBackoffMs(20, () => 1)).toBe(8_050);
    expect(MAX_ATTEMPTS).toBeGreaterThan(1);
  });
});

describe('another client on the key (no store between machines)', () => {
  const sentTwo = () => send(send({ ...EMPTY_STATE, quota: window(10) }, 'a'), 'b');

  it('a Remaining below what this state left itself means another client: one at a time until Reset', () => {
    // 10 known, 2 taken: 8 left as far as this state knows. The server counted both and 5 more.
    const state = observeAnswer(sentTwo(), 'a', NOW, { status: 200, window: window(3) }, never);
    expect(anotherClient(sentTwo(), 'a', NOW, { status: 200, window: window(3) })).toBe(true);
    expect(state.crowdedUntilMs).toBe(NOW + 30_000);
    // The server's word on the budget, less 'b' still out, not the 8 this state had left.
    expect(state.quota?.remaining).toBe(2);
    // 'b' is still out: the next waits for it, or for the Reset, though the budget has room.
    expect(decideSend(state, NOW, 'c', CLAIM)).toMatchObject({
      go: false,
      reason: 'crowded',
      untilMs: NOW + 30_000,
    });
    expect(ampleBudget({ ...state, quota: window(50) }, NOW)).toBe(false);
    const alone = observeAnswer(state, 'b', NOW, { status: 200, window: window(2) }, never);
    const next = send(alone, 'c');
    expect(decideSend(next, NOW, 'd', CLAIM)).toMatchObject({ go: false, reason: 'crowded' });
    // At the Reset, a new window: as many at once as its budget allows again.
    const later = NOW + 30_000;
    const fresh = { ...releaseSend(next, 'c'), quota: window(10, 60_000) };
    expect(decideSend(fresh, later, 'e', later + 35_000).go).toBe(true);
    expect(decideSend(fresh, later, 'e', later + 35_000).state.crowdedUntilMs).toBeUndefined();
  });

  it('a 429 to a request sent under a window with budget means another client', () => {
    const answer: Answer = { status: 429, retryAfterMs: 5_000, window: window(0) };
    expect(anotherClient(sentTwo(), 'a', NOW, answer)).toBe(true);
    expect(observeAnswer(sentTwo(), 'a', NOW, answer, never).crowdedUntilMs).toBe(NOW + 30_000);
  });

  it('alone on the key, nothing is another client', () => {
    const state = sentTwo();
    // The server counted only what reached it: as much left as this state knows, or more.
    expect(anotherClient(state, 'a', NOW, { status: 200, window: window(9) })).toBe(false);
    expect(anotherClient(state, 'a', NOW, { status: 200, window: window(8) })).toBe(false);
    // A window already over, or one this state does not know, says nothing of it.
    expect(anotherClient(state, 'a', NOW, { status: 200, window: window(0, -1) })).toBe(false);
    // The request that learns a window predicted nothing, 429 or not.
    const probe = send(EMPTY_STATE, 'p');
    expect(anotherClient(probe, 'p', NOW, { status: 429, retryAfterMs: 1_000 })).toBe(false);
    expect(
      observeAnswer(probe, 'p', NOW, { status: 200, window: window(3) }, never),
    ).not.toHaveProperty('crowdedUntilMs');
  });
});
