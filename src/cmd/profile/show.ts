import type { Command } from 'commander';
import { chooseProfile } from '../../config/resolve-target.js';
import { printProfiles, showProfile, warnOverrides } from './view.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

export function defineShow(profile: Command, getSession: SessionSource): void {
  profile
    .command('show')
    .description('show a profile as commands use it, and where each setting comes from')
    .addHelpText('before', examples('pets profile show', 'pets profile show staging --json'))
    .argument('[name]', 'profile name (default: the one in use)')
    .action(async (name: string | undefined) => {
      const session = getSession();
      const config = await session.config();
      const chosen =
        name ?? chooseProfile(config.read(), session.globals.profile, session.env).name;
      const view = { config, env: session.env, profileFlag: session.globals.profile };
      await printProfiles(session, [showProfile(chosen, view)], true);
      await warnOverrides(session, config.read().activeProfile);
    });
}
