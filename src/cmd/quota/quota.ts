import { bar } from '../../output/bar.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import { liveLimits, placesTaken } from '../../ratelimit/policy.js';
import { clockTime, formatDuration } from '../../core/clock.js';
import { examples } from '../shared/help-text.js';
import type { CommandModule } from '../shared/command.js';
import type { KeyApi } from '../shared/deps.js';
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
  /** The rate store shared by machines, as its URL without a password; null: files here. */
  store: string | null;
  /** Where the key's state is in it: the Redis key, or the state file's path. */
  storeKey: string | null;
  /**
   * Places in the window taken now by every process (and machine) the store counts: requests
   * in flight, and those a process holds ahead for its next sends (policy.ts's placesTaken).
   */
  taken: number;
}

/**
 * The active key's quota. A fresh cached state (a window that has not reset yet), or a
 * cooldown, is shown without sending; otherwise one cheap request asks the server.
 */
export async function showQuota(
  target: ApiTarget,
  deps: Pick<KeyApi, 'api' | 'gate'> & { now: () => number; signal?: AbortSignal },
): Promise<QuotaReport> {
  let state = deps.gate.snapshot;
  let source: QuotaReport['source'] = 'cached';
  const live = liveLimits(state, deps.now());
  if (live.cooldownUntilMs === undefined && !live.quota) {
    await deps.api.listPets({ limit: 1 }, { signal: deps.signal });
    state = deps.gate.snapshot;
    source = 'server';
  }
  const now = deps.now();
  const quota = state?.quota;
  const cooldown = liveLimits(state, now).cooldownUntilMs;
  const where = deps.gate.storeView;
  return {
    profile: target.profile,
    limit: quota?.limit ?? null,
    remaining: quota?.remaining ?? null,
    resetAt: quota ? new Date(quota.resetAtMs).toISOString() : null,
    resetInSeconds: quota ? Math.max(0, Math.ceil((quota.resetAtMs - now) / 1000)) : null,
    cooldownUntil: cooldown === undefined ? null : new Date(cooldown).toISOString(),
    cooldownCode: cooldown === undefined ? null : (state?.cooldownCode ?? null),
    source,
    store: where.shared ?? null,
    storeKey: where.place ?? null,
    taken: placesTaken(state, now),
  };
}

/** The quota as label and value pairs; `withBar` adds the usage bar for a terminal. */
export function quotaFields(
  report: QuotaReport,
  now: number,
  withBar: boolean,
): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  if (report.limit === null || report.resetAt === null) {
    fields.push(['limit', 'the server sent no rate-limit headers']);
  } else {
    const resetMs = Date.parse(report.resetAt);
    fields.push(
      ['limit', `${report.limit} requests per window`],
      ['remaining', String(report.remaining)],
    );
    if (withBar && report.remaining !== null && report.limit > 0) {
      const used = Math.min(1, Math.max(0, (report.limit - report.remaining) / report.limit));
      fields.push(['used', `${bar(used)} ${Math.round(used * 100)}% used`]);
    }
    fields.push([
      'resets',
      `${clockTime(resetMs, now)} (in ${formatDuration(Math.max(0, resetMs - now))})`,
    ]);
  }
  if (report.cooldownUntil !== null) {
    const until = Date.parse(report.cooldownUntil);
    const why = report.cooldownCode === 'key_banned' ? 'banned by the server' : 'after a 429';
    fields.push([
      'cooldown',
      `${why}, until ${clockTime(until, now)} (in ${formatDuration(until - now)})`,
    ]);
  } else {
    fields.push(['cooldown', 'none']);
  }
  fields.push([
    'source',
    report.source === 'cached' ? 'last answer (nothing sent)' : 'asked the server',
  ]);
  fields.push([
    'rate store',
    report.store === null
      ? `files on this machine${report.storeKey ? ` (${report.storeKey})` : ''}`
      : `${report.store}, shared by machines (key ${report.storeKey ?? '?'})`,
  ]);
  const requests = `request${report.taken === 1 ? '' : 's'}`;
  fields.push(['taken', `${report.taken} ${requests} in flight or held ahead`]);
  return fields;
}

export const quotaCommand: CommandModule = {
  define(program, getSession) {
    program
      .command('quota')
      .description('show the rate-limit state of the key in use: limit, remaining, reset, cooldown')
      .addHelpText(
        'before',
        examples('pets quota', 'pets quota --json', 'pets --profile staging quota'),
      )
      .action(async () => {
        const session = getSession();
        const target = await session.target();
        await session.terminal.environmentLine(target);
        const { api, gate } = await session.api(target);
        const report = await showQuota(target, {
          api,
          gate,
          now: session.clock.now,
          signal: session.signal,
        });
        if (session.terminal.mode === 'json') return session.terminal.printJson(report);
        await session.terminal.printFields([
          ['profile', report.profile],
          ...quotaFields(report, session.clock.now(), session.terminal.mode === 'table'),
        ]);
      });
  },
};
