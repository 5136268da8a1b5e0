import { Argument, type Command } from 'commander';
import { completionScript, SHELLS, type Shell } from '../../completion/scripts.js';
import { examples } from '../shared/help-text.js';
import type { CommandModule } from '../shared/command.js';

export const completionCommand: CommandModule = {
  define(program, getSession) {
    program
      .command('completion')
      .description('print the shell completion script for bash, zsh or fish')
      // choices: anything else is a usage error naming the shells, and `completion <Tab>` offers them.
      .addArgument(new Argument('<shell>', 'the shell to print the script for').choices(SHELLS))
      .addHelpText(
        'before',
        examples(
          'source <(pets completion bash)',
          'pets completion bash > ~/.local/share/bash-completion/completions/pets',
          'pets completion zsh > "${fpath[1]}/_pets"',
          'pets completion fish > ~/.config/fish/completions/pets.fish',
        ),
      )
      .action((shell: Shell) => {
        getSession().terminal.print(completionScript(shell));
      });

    // What the scripts call: `pets __complete -- <words after pets>`, the last one being typed.
    program
      .command('__complete', { hidden: true })
      .description('print completion candidates for the words after "pets", one a line')
      .argument('[words...]', 'the words after "pets"; the last one is being completed')
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async () => {
        // Loaded here: every run defines this command, only Tab presses run it.
        const [{ complete, formatCandidates }, { profileNames }, { HELP_TOPICS }] =
          await Promise.all([
            import('../../completion/complete.js'),
            import('../../completion/profile-names.js'),
            import('../help/help.js'),
          ]);
        const session = getSession();
        const profiles = () => profileNames(session.env);
        session.terminal.print(
          formatCandidates(
            complete(program, completeWords(program), { profiles, helpTopics: HELP_TOPICS }),
          ),
        );
      });
  },
};

/**
 * The words as given. The program's own parse stops at the scripts' `--`, so its `args` keep
 * every word after it, a later `--` included (the subcommand's parse would drop that one).
 */
function completeWords(program: Command): string[] {
  const [name, ...words] = program.args;
  return name === '__complete' ? words : [];
}
