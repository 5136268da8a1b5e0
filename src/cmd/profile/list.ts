import type { Command } from 'commander';
import { listProfiles, printProfiles, warnOverrides } from './view.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

export function defineList(profile: Command, session: SessionSource): void {
  profile
    .command('list')
    .description(
      'list profiles; * marks the one in use (--profile, PETS_PROFILE or the active one)',
    )
    .addHelpText('before', examples('pets profile list', 'pets profile list --json'))
    .action(async () => {
      const run = session();
      const config = await run.config();
      const view = { config, env: run.deps.env, profileFlag: run.globals.profile };
      await printProfiles(run, listProfiles(view), false);
      await warnOverrides(run, config.read().activeProfile);
    });
}
