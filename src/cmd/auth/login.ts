import type { ReadStream } from 'node:tty';
import type { Command } from 'commander';
import { keyHint } from '../../config/key-hint.js';
import { keyProblem } from '../../config/key-check.js';
import type { Env } from '../../config/paths.js';
import { chooseProfile } from '../../config/resolve-target.js';
import type { ConfigStore } from '../../config/store.js';
import { UsageError } from '../../core/errors.js';
import { readStdin } from '../../terminal/read-stdin.js';
import { examples } from '../shared/help-text.js';
import type { Session, SessionSource } from '../shared/session.js';

export async function login(
  options: { profileFlag?: string; key: string },
  deps: { config: ConfigStore; env: Env },
): Promise<{ profile: string; key: string; baseUrl: string | undefined }> {
  const key = options.key.trim();
  if (key === '') throw new UsageError('the API key is empty', { hint: 'Nothing was saved.' });
  const problem = keyProblem(key);
  if (problem) {
    throw new UsageError(`the API key ${problem}`, {
      hint: 'Check what was pasted; nothing was saved.',
    });
  }
  return deps.config.update((data) => {
    const name = chooseProfile(data, options.profileFlag, deps.env);
    data.profiles[name] = { ...data.profiles[name], apiKey: key };
    return { profile: name, key: keyHint(key), baseUrl: data.profiles[name].baseUrl };
  });
}

const MAX_KEY_INPUT_BYTES = 64 * 1024;

async function readKey(session: Session, withKey: boolean): Promise<string> {
  const { io } = session.deps;
  const firstLine = (text: string) => text.split(/\r?\n/)[0] ?? '';
  if (withKey && !io.stdinIsTTY) {
    return firstLine(await readStdin(io.stdin, MAX_KEY_INPUT_BYTES, session.deps.signal));
  }
  // --with-key with a terminal on stdin: a person is there, so the hidden prompt serves them
  // (a pasted key is not echoed); with --no-input, they are told how to end the input.
  if (withKey && !session.canPrompt) {
    io.stderr.write('Paste the key, then press Enter and Ctrl-D (Ctrl-C to cancel):\n');
    return firstLine(await readStdin(io.stdin, MAX_KEY_INPUT_BYTES, session.deps.signal));
  }
  if (!session.canPrompt) {
    throw new UsageError(
      io.stdinIsTTY
        ? '--no-input forbids asking for the key'
        : 'there is no terminal to ask for the key on',
      { hint: 'Pipe it in instead: pets auth login --with-key < key.txt' },
    );
  }
  const { promptSecret } = await import('../../terminal/prompt.js');
  return promptSecret('API key (input hidden): ', io.stdin as ReadStream, io.stderr);
}

export function defineLogin(auth: Command, getSession: SessionSource): void {
  auth
    .command('login')
    .description('store an API key for the profile (never taken from the command line)')
    .addHelpText(
      'before',
      examples('pets auth login', 'pets auth login --profile staging --with-key < staging.key'),
    )
    .option('--with-key', 'read the key from stdin (from a terminal: the hidden prompt)')
    .action(async (options: { withKey?: boolean }) => {
      const session = getSession();
      const key = await readKey(session, options.withKey === true);
      session.secrets.add(key.trim());
      const saved = await login(
        { profileFlag: session.globals.profile, key },
        { config: await session.config(), env: session.deps.env },
      );
      // The host is named so that a planted or mistyped base URL is seen before the key goes there.
      session.notice(
        saved.baseUrl
          ? `Saved the key ${saved.key} for profile "${saved.profile}", which sends it to ${new URL(saved.baseUrl).host}.`
          : `Saved the key ${saved.key} for profile "${saved.profile}", which has no base URL yet: run \`pets profile set ${saved.profile} --base-url https://<host>/v1\`.`,
      );
      if (session.deps.env.PETS_API_KEY) {
        await session.warn('PETS_API_KEY is set and overrides the saved key until it is unset.', {
          code: 'key_overridden',
        });
      }
    });
}
