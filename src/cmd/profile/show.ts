import type { Command } from 'commander';
import { chooseProfile } from '../../config/resolve-target.js';
import { printProfiles, showProfile, warnOverrides } from './view.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

export function defineShow(profile: Command, session: SessionSource): void {
  profile
    .command('show')
    .description('show a profile as commands use it, and where each setting comes from')
    .addHelpText('before', examples('pets profile show', 'pets profile show staging --json'))
    .argument('[name]', 'profile name (default: the one in use)')
    .action(async (name: string | undefined) => {
      const run = session();
      const config = await run.config();
      const chosen = name ?? chooseProfile(config.read(), run.globals.profile, run.deps.env);
      const view = { config, env: run.deps.env, profileFlag: run.globals.profile };
      await printProfiles(run, [showProfile(chosen, view)], true);
      await warnOverrides(run, config.read().activeProfile);
    });
}
