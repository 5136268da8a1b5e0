import type { Command } from 'commander';
import { clockTime, formatDuration } from '../../core/clock.js';
import type { QuotaReport } from './quota.js';
import { examples, type SessionSource } from '../root.js';

const BAR_WIDTH = 20;

/** The used share of the window as a bar, for a person at a terminal. */
export function usageBar(limit: number, remaining: number): string {
  const used = Math.min(1, Math.max(0, (limit - remaining) / limit));
  const filled = Math.round(used * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.round(used * 100)}% used`;
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
      fields.push(['used', usageBar(report.limit, report.remaining)]);
    }
    fields.push([
      'resets',
      `${clockTime(resetMs)} (in ${formatDuration(Math.max(0, resetMs - now))})`,
    ]);
  }
  if (report.cooldownUntil !== null) {
    const until = Date.parse(report.cooldownUntil);
    const why = report.cooldownCode === 'key_banned' ? 'banned by the server' : 'after a 429';
    fields.push([
      'cooldown',
      `${why}, until ${clockTime(until)} (in ${formatDuration(until - now)})`,
    ]);
  } else {
    fields.push(['cooldown', 'none']);
  }
  fields.push([
    'source',
    report.source === 'cached' ? 'last answer (nothing sent)' : 'asked the server',
  ]);
  return fields;
}

export function registerQuotaCommand(program: Command, session: SessionSource): void {
  program
    .command('quota')
    .description('show the rate-limit state of the key in use: limit, remaining, reset, cooldown')
    .addHelpText(
      'before',
      examples('pets quota', 'pets quota --json', 'pets --profile staging quota'),
    )
    .action(async () => {
      const run = session();
      const target = await run.target();
      await run.environmentLine(target);
      const [{ showQuota }, api] = await Promise.all([import('./quota.js'), run.api(target)]);
      const report = await showQuota(target, {
        api,
        now: run.deps.clock.now,
        signal: run.deps.signal,
      });
      if (run.mode === 'json') return run.printJson(report);
      const { renderFields } = await import('../../output/render.js');
      run.print(
        renderFields(
          [
            ['profile', report.profile],
            ...quotaFields(report, run.deps.clock.now(), run.mode === 'table'),
          ],
          run.mode,
          await run.stdoutColors(),
        ),
      );
    });
}
