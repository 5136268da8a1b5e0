import { UsageError } from '../../core/errors.js';
import { examples } from '../shared/help-text.js';
import type { CommandModule } from '../shared/command.js';
import { closest } from '../../core/suggest.js';
import { BATCHES_TOPIC, CONFIG_TOPIC, RATE_LIMITS_TOPIC } from './guide-topics.js';
import { jsonTopic } from './json-topic.js';

const TOPICS: Record<string, string> = {
  config: CONFIG_TOPIC,
  batches: BATCHES_TOPIC,
  'rate-limits': RATE_LIMITS_TOPIC,
  'exit-codes': `Exit codes

  0    success
  1    failure not listed below, such as a 400 or a 403 from the server, a batch in
       which some records failed, or a --jq filter that failed on the output
  2    usage error: bad flag or value, missing profile setup, unreadable config;
       nothing was sent
  3    not found (404); for several ids, when any was missing
  4    authentication: no key, or the server answered 401
  5    rate limited: the wait needed is longer than --max-wait, the daily quota is
       used up, the key is banned, or the server refused it (429) 5 times in a row;
       the message says when to retry
  6    network: no response, connection refused or reset, timeout, a name that
       does not resolve, a proxy that refuses or cannot be reached; for a create,
       the message says whether the pet may have been created
  7    the server answered 5xx (503 5 times in a row, say), or an answer that
       breaks the contract (bad JSON, wrong shape, over 8 MiB)
  130  interrupted (Ctrl-C or SIGINT); a batch first saves its journal
  143  stopped by SIGTERM, and 129 by SIGHUP, as a shell reports them; likewise
`,
  environment: `Environment

  PETS_API_KEY                    API key; overrides the profile's (for CI)
  PETS_BASE_URL                   base address ending in /v1; overrides the profile's
  PETS_PROFILE                    profile to use (--profile wins over it)
  PETS_CONFIG_DIR                 config folder (default $XDG_CONFIG_HOME/pets, else
                                  ~/.config/pets)
  PETS_NO_DEPRECATION_WARNING=1   no deprecation notice from pets get
  NO_COLOR, FORCE_COLOR=0, TERM=dumb
                                  no colour
  XDG_CACHE_HOME                  compiled-code cache in $XDG_CACHE_HOME/pets, else
                                  ~/.cache/pets
  NODE_DISABLE_COMPILE_CACHE=1    no compiled-code cache (start-up is slower)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY (or lower-case)
                                  the proxy for https and http base URLs, and the
                                  hosts that go around it, as curl reads them
                                  (pets help config)
  NODE_EXTRA_CA_CERTS=<file>      also trust the CA certificates in <file> (a
                                  company CA; pets help json: when it cannot be read)
  NODE_USE_SYSTEM_CA=1            also trust the system's CA store
  NODE_OPTIONS                    obeyed by an npm install, as by any Node script;
                                  ignored by the executable pets-linux-x64, which
                                  opens no inspector on SIGUSR1 either

Precedence: flag > environment > config file. A variable is never refused, even
where it does nothing.
`,
  // Made when asked for: most runs never show it.
  get json() {
    return jsonTopic();
  },
};

/** The topics of `pets help` that are not commands. */
export const HELP_TOPICS: readonly string[] = Object.keys(TOPICS);

/** Each topic's text, as `pets help <topic>` prints it: the man page carries them too. */
export function helpTopics(): Readonly<Record<string, string>> {
  return TOPICS;
}

/**
 * Replaces commander's help command so that, besides `pets help <command>`, there are
 * topics that belong to no command: profiles, rate limits, JSON, exit codes, environment.
 */
export const helpCommand: CommandModule = {
  define(program, getSession) {
    program.helpCommand(false);
    program
      .command('help')
      .description(`help on a command, or a topic: ${HELP_TOPICS.join(', ')}`)
      .addHelpText(
        'before',
        examples('pets help list', 'pets help config', 'pets help json', 'pets help exit-codes'),
      )
      .argument('[topic...]', 'a command (e.g. "profile set") or a topic')
      .action((words: string[]) => {
        const session = getSession();
        const topic = TOPICS[words.join(' ')];
        if (topic !== undefined) {
          session.terminal.print(topic);
          return;
        }
        let command = program;
        for (const [index, word] of words.entries()) {
          const next = command.commands.find(
            (c) => c.name() === word || c.aliases().includes(word),
          );
          if (!next) {
            const names = [...command.commands.map((c) => c.name()), ...HELP_TOPICS];
            const meant = closest(word, names);
            throw new UsageError(
              `there is no help for "${words.join(' ')}"` +
                (meant ? ` (Did you mean pets help ${words.with(index, meant).join(' ')}?)` : ''),
              {
                hint: `Topics: ${HELP_TOPICS.join(', ')}; or a command, as in \`pets help list\`.`,
              },
            );
          }
          command = next;
        }
        command.outputHelp();
      });
  },
};
