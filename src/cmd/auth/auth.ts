import type { CommandModule } from '../shared/command.js';
import { examples } from '../shared/help-text.js';
import { defineLogin } from './login.js';
import { defineLogout } from './logout.js';
import { defineStatus } from './status.js';

export const authCommand: CommandModule = {
  define(program, getSession) {
    const auth = program
      .command('auth')
      .description('store, remove or check the API key of a profile')
      .addHelpText(
        'before',
        examples(
          'pets auth login',
          'pets auth login --profile staging --with-key < staging.key',
          'pets auth status',
        ),
      );
    defineLogin(auth, getSession);
    defineLogout(auth, getSession);
    defineStatus(auth, getSession);
  },
};
