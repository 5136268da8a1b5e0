import type { Command } from 'commander';
import { checkBaseUrl } from '../../config/base-url.js';
import { checkProfileName } from '../../config/store.js';
import { UsageError } from '../../core/errors.js';
import { checkRateStore, urlPassword } from '../../config/rate-store.js';
import { readStdin } from '../../terminal/read-stdin.js';
import { savedProfile, type ConfigDeps, type ProfileSummary } from './view.js';
import { examples } from '../shared/help-text.js';
import type { Session, SessionSource } from '../shared/session.js';

/** Creates the profile if it does not exist yet, or changes what is given; keeps its key. */
export async function setProfile(
  name: string,
  settings: { baseUrl?: string; protected?: boolean; rateStore?: string | false },
  deps: ConfigDeps,
): Promise<ProfileSummary> {
  checkProfileName(name);
  if (
    settings.baseUrl === undefined &&
    settings.protected === undefined &&
    settings.rateStore === undefined
  ) {
    throw new UsageError(
      'profile set needs --base-url, --protected, --no-protected, --rate-store or --no-rate-store',
      { hint: `Example: pets profile set ${name} --base-url https://api.example.com/v1` },
    );
  }
  const baseUrl =
    settings.baseUrl === undefined ? undefined : checkBaseUrl(settings.baseUrl, '--base-url');
  const rateStore =
    typeof settings.rateStore === 'string'
      ? checkRateStore(settings.rateStore, '--rate-store', 'config').url
      : undefined;
  await deps.config.update((data) => {
    const { rateStore: _old, ...kept } = data.profiles[name] ?? {};
    data.profiles[name] = {
      ...(settings.rateStore === false ? kept : data.profiles[name]),
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(settings.protected === undefined ? {} : { protected: settings.protected }),
      ...(rateStore === undefined ? {} : { rateStore }),
    };
  });
  return savedProfile(name, deps);
}

export function defineSet(profile: Command, getSession: SessionSource): void {
  profile
    .command('set')
    .description('create a profile, or change its base URL or protection')
    .argument('<name>', 'profile name')
    .option('--base-url <url>', 'the API address ending in /v1 (https, or http to loopback)')
    .option(
      '--protected',
      'show a badge on creates and ask before batches (production has it by default)',
    )
    .option('--no-protected', 'stop guarding this profile')
    .option(
      '--rate-store <url>',
      "share the key's rate limits with other machines through Redis: redis://[user@]host:port[/db] or rediss://; - reads it from stdin, or asks for it hidden (for a URL with a password)",
    )
    .option('--no-rate-store', "keep the key's rate state in files on this machine again")
    .addHelpText(
      'before',
      examples(
        'pets profile set production --base-url https://api.example.com/v1',
        'pets profile set eu-prod --base-url https://eu.example.com/v1 --protected',
        'pets profile set ci --rate-store redis://redis.internal:6379/0',
        'pets profile set ci --rate-store - < store-url.txt   # a URL with a password',
      ),
    )
    .action(
      async (
        name: string,
        options: { baseUrl?: string; protected?: boolean; rateStore?: string | false },
      ) => {
        const session = getSession();
        if (options.rateStore === '-') options.rateStore = await readRateStore(session);
        else if (typeof options.rateStore === 'string') refusePasswordInArgv(options.rateStore);
        const saved = await setProfile(name, options, { config: await session.config() });
        session.terminal.notice(
          `Saved profile "${saved.name}": ${saved.baseUrl ?? 'no base URL yet'}` +
            (saved.protected ? ' (protected)' : '') +
            '.',
        );
        if (saved.key === '(none)')
          session.terminal.notice(`Next: pets auth login --profile ${saved.name}`);
      },
    );
}

/**
 * A password on the command line stays in the shell's history and shows in the process list,
 * where other users of the machine can read it: such a URL comes through stdin, or hidden.
 */
function refusePasswordInArgv(url: string): void {
  if (!urlPassword(url)) return;
  throw new UsageError(
    '--rate-store holds a password, which the command line would leave in the shell history and the process list; nothing was saved',
    {
      hint:
        'Give the URL on stdin, or at the hidden prompt: pets profile set NAME --rate-store - < store-url.txt ' +
        '(or set PETS_RATE_STORE in the environment).',
    },
  );
}

const MAX_URL_INPUT_BYTES = 8 * 1024;

/** `--rate-store -`: the URL's first line from stdin, or typed hidden at a terminal. */
async function readRateStore(session: Session): Promise<string> {
  const { terminal, signal } = session;
  if (!terminal.stdinIsTTY) {
    const text = await readStdin(terminal.stdin, MAX_URL_INPUT_BYTES, signal);
    return (text.split(/\r?\n/)[0] ?? '').trim();
  }
  const whyNot = terminal.whyNoPrompt;
  if (whyNot !== undefined) {
    throw new UsageError(`cannot ask for the rate store's URL: ${whyNot}`, {
      hint: 'Pipe it in instead: pets profile set NAME --rate-store - < store-url.txt',
    });
  }
  return terminal.prompts.secret({
    message: 'Rate store URL (input hidden): ',
    subject: "the rate store's URL",
  });
}
