import { describe, expect, it } from 'vitest';
import {
  BACKOFF_CAP_MS,
  EMPTY_STATE,
  NO_INFORMATION_WAIT_MS,
  PACING_HORIZON_MS,
  cooldownAfter429,
  observeResponse,
  reserveSend,
  type GateState,
} from '../../src/ratelimit/policy.js';
import { readRateHeaders } from '../../src/ratelimit/read-headers.js';
import { MAX_ATTEMPTS, retryBackoffMs, retryDecision } from '../../src/ratelimit/retry-policy.js';

const NOW = 1_800_000_000_000;
const quota = (remaining: number, resetInMs: number, limit = 60) => ({
  limit,
  remaining,
  resetAtMs: NOW + resetInMs,
});

describe('reserveSend', () => {
  it.each<[string, GateState, number, string | undefined]>([
    ['no information: send now', EMPTY_STATE, 0, undefined],
    [
      'a cooldown in force: wait it out',
      { consecutive429s: 1, cooldownUntilMs: NOW + 3_000 },
      3_000,
      'cooldown',
    ],
    [
      'a cooldown that has passed: send now',
      { consecutive429s: 1, cooldownUntilMs: NOW - 1 },
      0,
      undefined,
    ],
    [
      'remaining 0: wait for Reset',
      { consecutive429s: 0, quota: quota(0, 20_000) },
      20_000,
      'quota',
    ],
    ['remaining 0 past Reset: send now', { consecutive429s: 0, quota: quota(0, -1) }, 0, undefined],
    [
      'budget to spare, last send long ago: send now',
      { consecutive429s: 0, quota: quota(30, 30_000), lastSendAtMs: NOW - 10_000 },
      0,
      undefined,
    ],
    [
      'spread: 29 left over 58 s after a send just now waits 2 s',
      { consecutive429s: 0, quota: quota(29, 58_000), lastSendAtMs: NOW },
      2_000,
      'pacing',
    ],
    [
      'spread counts from the last send',
      { consecutive429s: 0, quota: quota(10, 10_000), lastSendAtMs: NOW - 500 },
      550,
      'pacing',
    ],
    [
      'a daily window beyond the horizon is not spread',
      { consecutive429s: 0, quota: quota(50, PACING_HORIZON_MS + 60_000, 1000), lastSendAtMs: NOW },
      0,
      undefined,
    ],
    [
      'a cooldown longer than the pacing wins',
      {
        consecutive429s: 1,
        cooldownUntilMs: NOW + 9_000,
        quota: quota(5, 10_000),
        lastSendAtMs: NOW,
      },
      9_000,
      'cooldown',
    ],
  ])('%s', (_case, state, waitMs, reason) => {
    const reservation = reserveSend(state, NOW);
    expect(reservation.waitMs).toBe(waitMs);
    expect(reservation.reason).toBe(reason);
  });

  it('hands concurrent callers successive slots and counts them against the budget', () => {
    let state: GateState = { consecutive429s: 0, quota: quota(4, 4_000), lastSendAtMs: NOW };
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const reservation = reserveSend(state, NOW);
      waits.push(reservation.waitMs);
      state = reservation.state;
    }
    expect(waits).toEqual([1_000, 2_000, 3_000, 4_000, 4_000]);
    expect(state.quota).toBeUndefined();
  });

  it('never lets a steady stream exceed the budget before Reset', () => {
    let state: GateState = { consecutive429s: 0, quota: quota(59, 60_000), lastSendAtMs: NOW };
    let now = NOW;
    let sent = 0;
    while (now < NOW + 60_000) {
      const reservation = reserveSend(state, now);
      now += reservation.waitMs;
      if (now >= NOW + 60_000) break;
      state = reservation.state;
      sent++;
    }
    expect(sent).toBeLessThanOrEqual(59);
    expect(sent).toBeGreaterThanOrEqual(58);
  });
});

describe('observeResponse', () => {
  it('takes the server quota, keeping the lowest Remaining within one window', () => {
    const state: GateState = { consecutive429s: 2, quota: quota(5, 30_000) };
    expect(observeResponse(state, 200, quota(9, 30_400)).quota?.remaining).toBe(5);
    expect(observeResponse(state, 200, quota(9, 90_000)).quota?.remaining).toBe(9);
  });

  it('ends a 429 streak on any other answer, and keeps it on a 429', () => {
    const state: GateState = { consecutive429s: 2 };
    expect(observeResponse(state, 200, undefined).consecutive429s).toBe(0);
    expect(observeResponse(state, 429, undefined).consecutive429s).toBe(2);
  });
});

describe('cooldownAfter429', () => {
  it.each<[string, GateState, number | undefined, number, number]>([
    ['Retry-After, no jitter drawn', EMPTY_STATE, 3_000, 0, 3_000],
    ['Retry-After plus full jitter of the first step', EMPTY_STATE, 3_000, 1, 4_000],
    ['the third 429 in a row: jitter up to 4 s', { consecutive429s: 2 }, 3_000, 1, 7_000],
    [
      'no Retry-After, quota at 0: wait for Reset',
      { consecutive429s: 0, quota: quota(0, 12_000) },
      undefined,
      0,
      12_000,
    ],
    ['no information at all: at least a second', EMPTY_STATE, undefined, 0, NO_INFORMATION_WAIT_MS],
    ['jitter is capped', { consecutive429s: 30 }, 0, 1, BACKOFF_CAP_MS],
  ])('%s', (_case, state, retryAfterMs, random, waitMs) => {
    const cooldown = cooldownAfter429(state, NOW, retryAfterMs, 'rate_limited', () => random);
    expect(cooldown.waitMs).toBe(waitMs);
    expect(cooldown.state.cooldownUntilMs).toBe(NOW + waitMs);
    expect(cooldown.state.consecutive429s).toBe(state.consecutive429s + 1);
  });

  it('never shortens a cooldown already in force, and is never below the server wait', () => {
    const state: GateState = { consecutive429s: 0, cooldownUntilMs: NOW + 600_000 };
    expect(cooldownAfter429(state, NOW, 2_000, 'key_banned', () => 0).waitMs).toBe(600_000);
    for (const r of [0, 0.3, 0.99]) {
      expect(
        cooldownAfter429(EMPTY_STATE, NOW, 5_000, undefined, () => r).waitMs,
      ).toBeGreaterThanOrEqual(5_000);
    }
  });
});

describe('retryDecision', () => {
  it.each([
    ['GET', { kind: 'response', status: 429 }, 'rate-limited'],
    ['POST', { kind: 'response', status: 429 }, 'rate-limited'],
    ['GET', { kind: 'response', status: 502 }, 'retry'],
    ['GET', { kind: 'response', status: 503 }, 'retry'],
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

describe('readRateHeaders', () => {
  const date = (ms: number) => new Date(ms).toUTCString();
  const resetIn = (s: number) => String(Math.floor(NOW / 1000) + s);

  it.each<[string, Record<string, string>, number | undefined, number | undefined]>([
    [
      'same clocks',
      {
        date: date(NOW),
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '3',
        'x-ratelimit-reset': resetIn(30),
      },
      NOW + 30_000,
      undefined,
    ],
    [
      'server 1 h ahead: Reset moved onto our clock',
      {
        date: date(NOW + 3_600_000),
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '3',
        'x-ratelimit-reset': resetIn(3_630),
      },
      NOW + 30_000,
      undefined,
    ],
    [
      'server 10 min behind',
      {
        date: date(NOW - 600_000),
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '3',
        'x-ratelimit-reset': resetIn(-570),
      },
      NOW + 30_000,
      undefined,
    ],
    [
      'no Date: our clock',
      { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': resetIn(30) },
      NOW + 30_000,
      undefined,
    ],
    ['Retry-After as seconds', { 'retry-after': '7' }, undefined, 7_000],
    [
      'Retry-After as a date on a skewed server',
      { date: date(NOW + 3_600_000), 'retry-after': date(NOW + 3_605_000) },
      undefined,
      5_000,
    ],
    [
      'garbage everywhere',
      { date: 'yesterday', 'x-ratelimit-limit': 'x', 'retry-after': 'soon' },
      undefined,
      undefined,
    ],
    [
      'Remaining 0 with Reset 0',
      { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' },
      undefined,
      undefined,
    ],
  ])('%s', (_case, headers, resetAtMs, retryAfterMs) => {
    const read = readRateHeaders(headers, NOW);
    expect(read.quota?.resetAtMs).toBe(resetAtMs);
    expect(read.retryAfterMs).toBe(retryAfterMs);
  });
});
