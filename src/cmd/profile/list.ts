import type { Command } from 'commander';
import { checkProfileExists } from '../../config/resolve-target.js';
import { listProfiles, printProfiles, warnOverrides } from './view.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

export function defineList(profile: Command, getSession: SessionSource): void {
  profile
    .command('list')
    .description(
      'list profiles; * marks the one in use (--profile, PETS_PROFILE or the active one)',
    )
    .addHelpText('before', examples('pets profile list', 'pets profile list --json'))
    .action(async () => {
      const session = getSession();
      const config = await session.config();
      // --profile acts here by choosing the profile * marks: one that does not exist marks none.
      const named = session.globals.profile;
      if (named !== undefined) checkProfileExists(config.read(), named, 'flag');
      const view = { config, env: session.env, profileFlag: session.globals.profile };
      await printProfiles(session, listProfiles(view), false);
      await warnOverrides(session, config.read().activeProfile);
    });
}
