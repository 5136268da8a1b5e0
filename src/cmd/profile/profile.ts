import type { CommandModule } from '../shared/command.js';
import { examples } from '../shared/help-text.js';
import { defineList } from './list.js';
import { defineRemove } from './remove.js';
import { defineSet } from './set.js';
import { defineShow } from './show.js';
import { defineUse } from './use.js';

export const profileCommand: CommandModule = {
  define(program, getSession) {
    const profile = program
      .command('profile')
      .description('manage profiles: a base URL and a key per environment')
      .addHelpText(
        'before',
        examples(
          'pets profile set staging --base-url https://staging.example.com/v1',
          'pets profile use staging',
          'pets profile list',
        ),
      );
    defineList(profile, getSession);
    defineShow(profile, getSession);
    defineUse(profile, getSession);
    defineSet(profile, getSession);
    defineRemove(profile, getSession);
  },
};
