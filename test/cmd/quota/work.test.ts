// showQuota, the work of `pets quota`, on a gate and client of the test's making: the end-to-end
// tests (quota.test.ts) ask a real sandbox.
import { describe, expect, it } from 'vitest';
import type { PetsApi } from '../../../src/api/client.js';
import { quotaFields, showQuota } from '../../../src/cmd/quota/quota.js';
import type { KeyApi } from '../../../src/cmd/shared/deps.js';
import type { GateState } from '../../../src/ratelimit/policy.js';
import { stagingTarget } from '../../helpers/api-env.js';

const BASE = 'https://api.example.com/v1';
const target = stagingTarget(BASE);
const NOW = Date.UTC(2031, 0, 1, 12, 0, 0);

/** A gate whose state is `before` until the client's one request, then `after`. */
function keyApi(before: GateState, after: GateState = before) {
  let sent = 0;
  const api = {
    listPets: async () => {
      sent++;
      return [];
    },
  } as unknown as PetsApi;
  const gate = {
    get snapshot() {
      return sent === 0 ? before : after;
    },
    storeView: { place: '/config/state/key.json' },
  } as unknown as KeyApi['gate'];
  return { deps: { api, gate, now: () => NOW }, sent: () => sent };
}

describe('showQuota', () => {
  it('asks the server once when nothing is known, and reports its window', async () => {
    const window = { limit: 50, remaining: 49, resetAtMs: NOW + 30_000 };
    const { deps, sent } = keyApi({}, { quota: window });
    expect(await showQuota(target, deps)).toEqual({
      profile: 'staging',
      limit: 50,
      remaining: 49,
      resetAt: new Date(NOW + 30_000).toISOString(),
      resetInSeconds: 30,
      cooldownUntil: null,
      cooldownCode: null,
      source: 'server',
      store: null,
      storeKey: '/config/state/key.json',
      taken: 0,
    });
    expect(sent()).toBe(1);
  });

  it('answers from a window that has not reset yet, or a cooldown, without sending', async () => {
    const fresh = keyApi({ quota: { limit: 50, remaining: 10, resetAtMs: NOW + 5_000 } });
    expect(await showQuota(target, fresh.deps)).toMatchObject({ remaining: 10, source: 'cached' });
    expect(fresh.sent()).toBe(0);
    const cooling = keyApi({ cooldownUntilMs: NOW + 60_000, cooldownCode: 'key_banned' });
    expect(await showQuota(target, cooling.deps)).toMatchObject({
      limit: null,
      cooldownUntil: new Date(NOW + 60_000).toISOString(),
      cooldownCode: 'key_banned',
      source: 'cached',
    });
    expect(cooling.sent()).toBe(0);
  });

  it('asks again once the window it knows has reset', async () => {
    const stale = { limit: 50, remaining: 0, resetAtMs: NOW - 1 };
    const next = { limit: 50, remaining: 49, resetAtMs: NOW + 60_000 };
    const { deps, sent } = keyApi({ quota: stale }, { quota: next });
    expect(await showQuota(target, deps)).toMatchObject({ remaining: 49, source: 'server' });
    expect(sent()).toBe(1);
  });

  it('counts the places claims hold, sent or taken ahead, and not those lapsed', async () => {
    // The state holds a claim alike for a request on the wire and for one a process took
    // ahead for its next send: `taken` is both, and says so; a lapsed claim holds nothing.
    const window = { limit: 50, remaining: 40, resetAtMs: NOW + 30_000 };
    const claim = (untilMs: number) => ({ untilMs, ended: 0 });
    const inFlight = {
      'a.1': claim(NOW + 5_000),
      'a.2': claim(NOW + 5_000),
      'b.1': { ...claim(NOW - 60_000), unplaced: true as const },
      'c.1': claim(NOW - 1),
    };
    const report = await showQuota(target, keyApi({ quota: window, inFlight }).deps);
    expect(report).toMatchObject({ taken: 3 });
    expect(report).not.toHaveProperty('inFlight');
    const fields = Object.fromEntries(quotaFields(report, NOW, false));
    expect(fields.taken).toBe('3 requests in flight or held ahead');
    expect(fields).not.toHaveProperty('in flight');
  });
});

describe('quotaFields', () => {
  it('reads as a list of fields, with a usage bar on a terminal', async () => {
    const window = { limit: 50, remaining: 25, resetAtMs: NOW + 30_000 };
    const report = await showQuota(target, keyApi({ quota: window }).deps);
    const fields = Object.fromEntries(quotaFields(report, NOW, true));
    expect(fields).toMatchObject({ limit: '50 requests per window', remaining: '25' });
    expect(fields.used).toMatch(/^\[#*\.*\] 50% used$/);
    expect(fields.resets).toMatch(/\(in 30 s\)$/);
    expect(fields.cooldown).toBe('none');
    expect(quotaFields(report, NOW, false).map(([label]) => label)).not.toContain('used');
  });
});
