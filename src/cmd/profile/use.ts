import type { Command } from 'commander';
import { hostOf } from '../../config/base-url.js';
import { checkProfileExists } from '../../config/resolve-target.js';
import { savedProfile, warnOverrides, type ConfigDeps, type ProfileSummary } from './view.js';
import { isProtected, type ConfigData } from '../../config/store.js';
import { UsageError } from '../../core/errors.js';
import { examples } from '../shared/help-text.js';
import type { Session, SessionSource } from '../shared/session.js';

export async function useProfile(name: string, deps: ConfigDeps): Promise<ProfileSummary> {
  await deps.config.update((data) => {
    checkProfileExists(data, name);
    data.activeProfile = name;
  });
  return savedProfile(name, deps);
}

export function defineUse(profile: Command, getSession: SessionSource): void {
  profile
    .command('use')
    .description('make a profile the active one')
    .addHelpText('before', examples('pets profile use staging', 'pets --profile production list'))
    .argument('[name]', 'profile name (at a terminal, left out: pick one from a list)')
    .action(async (named: string | undefined) => {
      const session = getSession();
      const config = await session.config();
      const name = named ?? (await pickProfile(session, config.read()));
      const used = await useProfile(name, { config });
      session.terminal.notice(
        `Now using profile "${used.name}" (${used.baseUrl ?? 'no base URL yet'}).`,
      );
      await warnOverrides(session, used.name);
    });
}

/** At a terminal, the profiles to pick from with the arrow keys; elsewhere, a usage error. */
async function pickProfile(session: Session, data: ConfigData): Promise<string> {
  if (!session.terminal.canPrompt) {
    throw new UsageError("missing required argument 'name'", {
      hint: 'Name the profile: pets profile use <name> (pets profile list shows them).',
    });
  }
  const { stringWidth } = await import('../../output/table.js');
  return session.terminal.prompts.select({
    message: 'Profile to use',
    choices: profileChoices(data, stringWidth),
    default: data.profiles[data.activeProfile] ? data.activeProfile : undefined,
  });
}

/**
 * Each profile, by name, with its host and the active and protected ones marked, in columns
 * that line up as the terminal shows them (`width`: the one width function).
 */
export function profileChoices(
  data: ConfigData,
  width: (text: string) => number,
): Array<{ value: string; name: string }> {
  const rows = Object.entries(data.profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => {
      const marks = [
        name === data.activeProfile ? 'active' : undefined,
        isProtected(name, profile) ? 'protected' : undefined,
      ].filter((mark) => mark !== undefined);
      const host = profile.baseUrl ? hostOf(profile.baseUrl) : 'no base URL';
      return { name, host, marks: marks.length > 0 ? `(${marks.join(', ')})` : '' };
    });
  const pad = (text: string, to: number) => text + ' '.repeat(Math.max(0, to - width(text)));
  const nameWidth = Math.max(0, ...rows.map((row) => width(row.name)));
  const hostWidth = Math.max(0, ...rows.map((row) => width(row.host)));
  return rows.map((row) => ({
    value: row.name,
    name: row.marks
      ? `${pad(row.name, nameWidth)}  ${pad(row.host, hostWidth)}  ${row.marks}`
      : `${pad(row.name, nameWidth)}  ${row.host}`,
  }));
}
