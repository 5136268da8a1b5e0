import type { Command } from 'commander';
import { hostOf } from '../../config/base-url.js';
import { BUILT_IN_PROFILES } from '../../config/store.js';
import { confirmProtectedProfile } from '../shared/confirm.js';
import { checkProfileExists } from '../../config/resolve-target.js';
import { savedProfile, type ConfigDeps } from './view.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

const builtIn = (name: string) => (BUILT_IN_PROFILES as readonly string[]).includes(name);

export interface RemovedProfile {
  name: string;
  /** production and staging always exist: removing one clears it instead. */
  cleared: boolean;
  /** The profile that became active, when the removed one was active. */
  nowActive?: string;
}

export async function removeProfile(name: string, deps: ConfigDeps): Promise<RemovedProfile> {
  return deps.config.update((data) => {
    checkProfileExists(data, name);
    if (builtIn(name)) {
      data.profiles[name] = {};
      return { name, cleared: true };
    }
    delete data.profiles[name];
    if (data.activeProfile !== name) return { name, cleared: false };
    data.activeProfile = BUILT_IN_PROFILES[0];
    return { name, cleared: false, nowActive: data.activeProfile };
  });
}

export function defineRemove(profile: Command, getSession: SessionSource): void {
  profile
    .command('remove')
    .description('remove a profile (production and staging are only cleared)')
    .addHelpText(
      'before',
      examples('pets profile remove dev', 'pets profile remove production --yes'),
    )
    .argument('<name>', 'profile name')
    .option('--yes', 'remove a protected profile without typing its name')
    .action(async (name: string, options: { yes?: boolean }) => {
      const session = getSession();
      const config = await session.config();
      const saved = savedProfile(name, { config });
      const host = saved.baseUrl ? hostOf(saved.baseUrl) : undefined;
      await confirmProtectedProfile(
        session,
        { profile: name, host, protected: saved.protected },
        {
          doing: builtIn(name) ? 'Clear' : 'Remove',
          action: 'removing it',
          nothingDone: 'nothing was changed',
          yes: options.yes === true,
        },
      );
      const removed = await removeProfile(name, { config });
      session.terminal.notice(
        removed.cleared
          ? `Profile "${name}" always exists: its base URL and key were cleared.`
          : `Removed profile "${name}".`,
      );
      if (removed.nowActive)
        session.terminal.notice(`The active profile is now "${removed.nowActive}".`);
    });
}
