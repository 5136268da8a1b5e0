import type { ApiTarget, PetsApi } from '../../api/client.js';
import type { GateState } from '../../ratelimit/policy.js';

export interface QuotaReport {
  profile: string;
  /** null when the server sends no rate-limit headers. */
  limit: number | null;
  remaining: number | null;
  resetAt: string | null;
  resetInSeconds: number | null;
  /** Until when nothing may be sent after a 429, when a cooldown is on. */
  cooldownUntil: string | null;
  cooldownCode: string | null;
  /** cached: from the state file, nothing sent; server: one request was made to find out. */
  source: 'cached' | 'server';
}

/**
 * The active key's quota. A fresh cached state (a window that has not reset yet), or a
 * cooldown, is shown without sending; otherwise one cheap request asks the server.
 */
export async function showQuota(
  target: ApiTarget,
  deps: { api: PetsApi; now: () => number; signal?: AbortSignal },
): Promise<QuotaReport> {
  let state = deps.api.rateLimitState();
  let source: QuotaReport['source'] = 'cached';
  const now = deps.now();
  const cooling = state?.cooldownUntilMs !== undefined && state.cooldownUntilMs > now;
  const fresh = state?.quota !== undefined && state.quota.resetAtMs > now;
  if (!cooling && !fresh) {
    await deps.api.listPets({ limit: 1 }, { signal: deps.signal });
    state = deps.api.rateLimitState();
    source = 'server';
  }
  return report(target.profile, state, deps.now(), source);
}

function report(
  profile: string,
  state: GateState | undefined,
  now: number,
  source: QuotaReport['source'],
): QuotaReport {
  const quota = state?.quota;
  const cooldown =
    state?.cooldownUntilMs !== undefined && state.cooldownUntilMs > now
      ? state.cooldownUntilMs
      : undefined;
  return {
    profile,
    limit: quota?.limit ?? null,
    remaining: quota?.remaining ?? null,
    resetAt: quota ? new Date(quota.resetAtMs).toISOString() : null,
    resetInSeconds: quota ? Math.max(0, Math.ceil((quota.resetAtMs - now) / 1000)) : null,
    cooldownUntil: cooldown === undefined ? null : new Date(cooldown).toISOString(),
    cooldownCode: cooldown === undefined ? null : (state?.cooldownCode ?? null),
    source,
  };
}
