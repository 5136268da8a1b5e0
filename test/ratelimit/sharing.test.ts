import { describe, expect, it } from 'vitest';
import { EMPTY_STATE, decideSend, type GateState } from '../../src/ratelimit/policy.js';
import {
  RESERVE_RELEASE_MS,
  RESET_UNCERTAINTY_MS,
  SHORT_RECENT_MS,
  SHORT_RESERVE,
  SPREAD_END_SHARE,
  forgetDemand,
  liveSharing,
  sayDemand,
} from '../../src/ratelimit/sharing.js';

const NOW = 1_800_000_000_000;
const CLAIM = NOW + 35_000;
const RESET_IN = 11_000;
const known = (remaining: number, extra: Partial<GateState> = {}): GateState => ({
  ...EMPTY_STATE,
  quota: { limit: 40, remaining, resetAtMs: NOW + RESET_IN },
  ...extra,
});
/** Where the spreading of a line anchored at NOW ends. */
const END = NOW + RESET_IN - RESET_UNCERTAINTY_MS - SPREAD_END_SHARE * RESET_IN;

const bulk = (count: number) => ({ owner: 'bulk', count });
const short = { owner: 'list', count: 1, short: true };

describe('sharing a window between bulk and short processes', () => {
  it('a bulk process whose work fits the budget sends at once, a short one on the key or not', () => {
    const state = known(40, { shortSeenAtMs: NOW });
    const decision = decideSend(state, NOW, 'a', CLAIM, bulk(40));
    expect(decision.go).toBe(true);
    expect(decision.state.demand?.bulk?.count).toBe(39);
  });

  it('with no short process on the key, a bulk process spends the budget at once, however much it has', () => {
    expect(decideSend(known(40), NOW, 'a', CLAIM, bulk(90)).go).toBe(true);
  });

  it('a bulk process whose work needs the next window leaves the last two requests until 2 s before Reset, for a short one to come', () => {
    const held = decideSend(known(SHORT_RESERVE), NOW, 'a', CLAIM, bulk(90));
    expect(held).toMatchObject({ go: false, reason: 'sharing' });
    expect(held.go === false && held.untilMs).toBe(NOW + RESET_IN - RESERVE_RELEASE_MS);
    // A `pets list` that comes meanwhile goes at once.
    expect(decideSend(held.state, NOW + 5_000, 'l', CLAIM, short).go).toBe(true);
    // The bulk process takes what is left at the end of the window: it needs no more windows.
    const late = NOW + RESET_IN - RESERVE_RELEASE_MS;
    expect(decideSend(known(SHORT_RESERVE), late, 'a', CLAIM, bulk(90)).go).toBe(true);
    // Work that fits the window takes it all at once, and so does a day's last budget.
    expect(decideSend(known(SHORT_RESERVE), NOW, 'a', CLAIM, bulk(SHORT_RESERVE)).go).toBe(true);
    const day: GateState = {
      ...EMPTY_STATE,
      quota: { limit: 1000, remaining: 2, resetAtMs: NOW + 86_400_000 },
    };
    expect(decideSend(day, NOW, 'a', CLAIM, bulk(90)).go).toBe(true);
  });

  it('when the work is more than the budget and a short process is on the key, a bulk process spreads its sends until shortly before Reset', () => {
    const state = sayDemand(known(40), 'list', { count: 1, short: true }, NOW, CLAIM);
    const first = decideSend(state, NOW, 'a', CLAIM, bulk(90));
    expect(first).toMatchObject({ go: false, reason: 'sharing' });
    // The line keeps 40 × (end − t) / (end − now) back: the first send may go at 1/40 of it.
    const step = (END - NOW) / 40;
    expect(first.go === false && first.untilMs).toBe(Math.ceil(NOW + step));
    expect(decideSend(first.state, Math.ceil(NOW + step), 'a', CLAIM, bulk(90)).go).toBe(true);
  });

  it('a short process never waits while budget is left, whatever the bulk processes said', () => {
    const state = sayDemand(known(1), 'bulk', { count: 500 }, NOW, CLAIM);
    const decision = decideSend(state, NOW, 'l', CLAIM, short);
    expect(decision.go).toBe(true);
    expect(decision.state.quota?.remaining).toBe(0);
    expect(decision.state.shortSeenAtMs).toBe(NOW);
  });

  it('leaves the budget a short process did not take to the bulk, all of it by the end of the line', () => {
    let state = sayDemand(known(40), 'list', { count: 1, short: true }, NOW, CLAIM);
    let sent = 0;
    for (let t = NOW; t <= END; t += 10) {
      for (;;) {
        const decision = decideSend(state, t, `b${sent}`, CLAIM, bulk(90 - sent));
        state = decision.state;
        if (!decision.go) break;
        sent++;
      }
    }
    expect(sent).toBe(40);
    expect(state.quota?.remaining).toBe(0);
  });

  it('a bulk process sends no faster than the line, and a short process taking budget holds it back', () => {
    let state = sayDemand(known(40), 'list', { count: 1, short: true }, NOW, CLAIM);
    state = decideSend(state, NOW, 'b', CLAIM, bulk(90)).state;
    const half = NOW + (END - NOW) / 2;
    let sent = 0;
    for (;;) {
      const decision = decideSend(state, half, `b${sent}`, CLAIM, bulk(90 - sent));
      state = decision.state;
      if (!decision.go) break;
      sent++;
    }
    expect(sent).toBe(20);
    state = decideSend(state, half, 'l', CLAIM, short).state;
    expect(decideSend(state, half, 'b', CLAIM, bulk(70)).go).toBe(false);
  });

  it('a Reset that moves (a new window) starts a new line', () => {
    const state = sayDemand(known(40), 'list', { count: 1, short: true }, NOW, CLAIM);
    const anchored = decideSend(state, NOW, 'b', CLAIM, bulk(90)).state;
    expect(anchored.spread?.fromMs).toBe(NOW);
    const moved: GateState = {
      ...anchored,
      quota: { limit: 40, remaining: 40, resetAtMs: NOW + 2 * RESET_IN },
    };
    expect(liveSharing(moved, NOW + 1).spread).toBeUndefined();
  });

  it('forgets a word past its time, a process found dead, and a short process not seen for a while', () => {
    let state = sayDemand(known(40), 'bulk', { count: 90 }, NOW, NOW + 1_000);
    state = sayDemand(state, 'list', { count: 1, short: true }, NOW, CLAIM);
    expect(Object.keys(liveSharing(state, NOW + 1_000).demand ?? {})).toEqual(['list']);
    expect(forgetDemand(state, 'list').demand).toEqual({
      bulk: { count: 90, untilMs: NOW + 1_000 },
    });
    const seen = known(40, { shortSeenAtMs: NOW });
    expect(liveSharing(seen, NOW + SHORT_RECENT_MS - 1).shortSeenAtMs).toBe(NOW);
    expect(liveSharing(seen, NOW + SHORT_RECENT_MS).shortSeenAtMs).toBeUndefined();
  });

  it('does not rewrite the shared state for a process that says the same again', () => {
    const state = sayDemand(EMPTY_STATE, 'bulk', { count: 5 }, NOW, CLAIM);
    expect(sayDemand(state, 'bulk', { count: 5 }, NOW + 1_000, CLAIM + 1_000)).toBe(state);
    expect(sayDemand(state, 'bulk', { count: 4 }, NOW + 1_000, CLAIM + 1_000)).not.toBe(state);
  });

  it('says nothing, and writes nothing, to a server that states no limit', () => {
    const state: GateState = { ...EMPTY_STATE, unlimited: true };
    const decision = decideSend(state, NOW, 'a', CLAIM, bulk(90));
    expect(decision.go).toBe(true);
    expect(decision.state.demand).toBeUndefined();
  });
});
