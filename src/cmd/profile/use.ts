import type { Command } from 'commander';
import {
  savedProfile,
  unknownProfile,
  warnOverrides,
  type ConfigDeps,
  type ProfileSummary,
} from './view.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

export async function useProfile(name: string, deps: ConfigDeps): Promise<ProfileSummary> {
  await deps.config.update((data) => {
    if (!(name in data.profiles)) throw unknownProfile(name);
    data.activeProfile = name;
  });
  return savedProfile(name, deps);
}

export function defineUse(profile: Command, getSession: SessionSource): void {
  profile
    .command('use')
    .description('make a profile the active one')
    .addHelpText('before', examples('pets profile use staging', 'pets --profile production list'))
    .argument('<name>', 'profile name')
    .action(async (name: string) => {
      const session = getSession();
      const used = await useProfile(name, { config: await session.config() });
      session.notice(`Now using profile "${used.name}" (${used.baseUrl ?? 'no base URL yet'}).`);
      await warnOverrides(session, used.name);
    });
}
