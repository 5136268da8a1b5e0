import type { Command } from 'commander';
import { keyHint } from '../../config/key-hint.js';
import { keyProblem } from '../../config/key-check.js';
import type { Env } from '../../config/paths.js';
import type { PetsApi } from '../../api/client.js';
import { checkBaseUrl, hostOf } from '../../config/base-url.js';
import {
  checkedBaseUrl,
  chooseProfile,
  effectiveSettings,
  type ApiTarget,
} from '../../config/resolve-target.js';
import { isProtected, type ConfigStore } from '../../config/store.js';
import { AuthError, InterruptedError, PetsError, UsageError } from '../../core/errors.js';
import { refusalOf } from '../../terminal/prompt.js';
import { readStdin } from '../../terminal/read-stdin.js';
import { examples } from '../shared/help-text.js';
import type { Session, SessionSource } from '../shared/session.js';

export async function login(
  options: { profileFlag?: string; key: string; baseUrl?: string },
  deps: { config: ConfigStore; env: Env },
): Promise<{ profile: string; key: string; baseUrl: string | undefined }> {
  const key = checkedKey(options.key);
  return deps.config.update((data) => {
    const name = chooseProfile(data, options.profileFlag, deps.env).name;
    data.profiles[name] = {
      ...data.profiles[name],
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      apiKey: key,
    };
    return { profile: name, key: keyHint(key), baseUrl: data.profiles[name].baseUrl };
  });
}

/** The key as it will be stored, or a usage error saying why it cannot be one. */
function checkedKey(typed: string): string {
  const key = typed.trim();
  if (key === '') throw new UsageError('the API key is empty', { hint: 'Nothing was saved.' });
  const problem = keyProblem(key);
  if (problem) {
    throw new UsageError(`the API key ${problem}`, {
      hint: 'Check what was pasted; nothing was saved.',
    });
  }
  return key;
}

/** What one request said of a key: taken, refused (401), or not known (no answer). */
export type KeyCheck = { outcome: 'accepted' } | { outcome: 'unchecked'; why: string };

/**
 * Checks `key` with the cheapest request the API has, as `gh auth login` checks a token.
 * A refusal (401) is thrown as AuthError; a server that cannot be asked leaves it unchecked.
 */
export async function checkKey(
  target: ApiTarget,
  deps: { api: PetsApi; signal?: AbortSignal },
): Promise<KeyCheck> {
  try {
    await deps.api.listPets({ limit: 1 }, { signal: deps.signal });
    return { outcome: 'accepted' };
  } catch (error) {
    if (error instanceof AuthError) {
      throw new AuthError(error.code, `${target.host} refused the key (401); it was not saved`, {
        status: error.status,
        hint: 'Check the key, and that it belongs to this environment, then log in again.',
      });
    }
    if (error instanceof InterruptedError) throw error;
    // 431: the server will not read a request carrying this key, now or ever.
    if (error instanceof PetsError && error.status === 431) {
      throw new AuthError(
        'key_too_large',
        `${target.host} refused the key as too large (431); it was not saved`,
        { status: 431, hint: 'Check what was pasted: the key alone, on one line.' },
      );
    }
    if (error instanceof PetsError) return { outcome: 'unchecked', why: error.message };
    throw error;
  }
}

const MAX_KEY_INPUT_BYTES = 64 * 1024;

async function readKey(session: Session, withKey: boolean): Promise<string> {
  const { terminal } = session;
  // --with-key reads stdin. With a terminal there, a person is there: the hidden prompt serves
  // them (a pasted key is not echoed), or where none may be asked they are told how to end it.
  if (withKey && (!terminal.stdinIsTTY || !terminal.canPrompt)) {
    // Said even with --quiet: without it the run seems to hang.
    if (terminal.stdinIsTTY) {
      terminal.stderr.write('notice', {
        code: 'paste_key',
        message: 'Paste the key, then press Enter and Ctrl-D (Ctrl-C to cancel):',
      });
    }
    const text = await readStdin(terminal.stdin, MAX_KEY_INPUT_BYTES, session.signal);
    return text.split(/\r?\n/)[0] ?? '';
  }
  const whyNot = terminal.whyNoPrompt;
  if (whyNot !== undefined) {
    throw new UsageError(`cannot ask for the key: ${whyNot}`, {
      hint: 'Pipe it in instead: pets auth login --with-key < key.txt',
    });
  }
  return terminal.prompts.secret({
    message: 'API key (input hidden): ',
    subject: 'the key',
  });
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
      const { env, terminal } = session;
      const config = await session.config();
      const data = config.read();
      const profile = chooseProfile(data, session.globals.profile, env).name;
      const where = effectiveSettings(data, profile, env);
      // A profile without an address is given one first, at a terminal: the key is checked
      // against it, and saved with it.
      const newBaseUrl =
        where.baseUrl === undefined && terminal.canPrompt && !options.withKey
          ? await askBaseUrl(session, profile)
          : undefined;
      const baseUrl = newBaseUrl ?? checkedBaseUrl(profile, where);
      // The host is named before the key is typed, so that a planted or mistyped base URL is
      // seen before the key goes there.
      if (baseUrl && terminal.canPrompt && !options.withKey) {
        terminal.notice(
          `Logging in to profile "${profile}": the key will be sent to ${hostOf(baseUrl)}.`,
        );
      }
      const { key, check } = await readAndCheckKey(session, {
        withKey: options.withKey === true,
        target: baseUrl
          ? {
              profile,
              baseUrl,
              host: hostOf(baseUrl),
              keySource: 'config',
              protected: isProtected(profile, data.profiles[profile]),
            }
          : undefined,
      });
      const saved = await login(
        { profileFlag: session.globals.profile, key, baseUrl: newBaseUrl },
        { config, env },
      );
      terminal.notice(
        saved.baseUrl
          ? `Saved the key ${saved.key} for profile "${saved.profile}", which sends it to ${hostOf(saved.baseUrl)}.`
          : `Saved the key ${saved.key} for profile "${saved.profile}", which has no base URL yet: run \`pets profile set ${saved.profile} --base-url https://<host>/v1\`.`,
      );
      if (check?.outcome === 'unchecked') {
        await terminal.warn(`the key was not checked: ${check.why}`, {
          code: 'key_unchecked',
        });
      }
      if (env.PETS_API_KEY) {
        await terminal.warn('PETS_API_KEY is set and overrides the saved key until it is unset.', {
          code: 'key_overridden',
        });
      }
    });
}

/** How many keys a person at a terminal may type before a refusal (401) ends the login. */
const KEY_TRIES = 3;

/**
 * Reads the key and checks it against `target`, when there is one. A person at the terminal
 * is asked again after a refusal (401), up to KEY_TRIES keys, all to the same address.
 */
async function readAndCheckKey(
  session: Session,
  options: { withKey: boolean; target: Omit<ApiTarget, 'apiKey'> | undefined },
): Promise<{ key: string; check: KeyCheck | undefined }> {
  const tries = session.terminal.canPrompt ? KEY_TRIES : 1;
  for (let tried = 1; ; tried++) {
    const key = await readKeyAfter(tried - 1, session, options.withKey);
    session.secrets.add(key);
    if (!options.target) return { key, check: undefined };
    const target: ApiTarget = { ...options.target, apiKey: key };
    try {
      const { api } = await session.api(target);
      return { key, check: await checkKey(target, { api, signal: session.signal }) };
    } catch (error) {
      if (!(error instanceof AuthError) || tried === tries) throw error;
      const left = tries - tried;
      // Said even with --quiet: without it the same question seems to come back for nothing.
      session.terminal.stderr.write('notice', {
        code: 'key_refused',
        message: `${error.message}. Type it again (${left} ${left === 1 ? 'try' : 'tries'} left), or press Ctrl-C to stop.`,
      });
    }
  }
}

/**
 * The next key, checked, after `refused` keys were sent and refused: a stop at the question
 * then says so, where a question alone would say that nothing was sent. A key typed wrong then
 * is not a usage error (exit 2 says nothing was sent) but the end of a login whose keys were
 * refused.
 */
async function readKeyAfter(refused: number, session: Session, withKey: boolean) {
  const sent = `${refused === 1 ? '1 key was' : `${refused} keys were`} sent and refused`;
  try {
    return checkedKey(await readKey(session, withKey));
  } catch (error) {
    if (refused > 0 && error instanceof InterruptedError) {
      error.message = `interrupted at a question; ${sent}, and nothing was saved`;
    }
    if (refused > 0 && error instanceof UsageError) {
      throw new AuthError('key_refused', `${error.message}; before it, ${sent}`, {
        hint: `${error.hint ? `${error.hint} ` : ''}Run pets auth login again with the right key.`,
      });
    }
    throw error;
  }
}

/** Asks for the profile's base URL, checked as `pets profile set --base-url` checks it. */
async function askBaseUrl(session: Session, profile: string): Promise<string> {
  const check = (answer: string) => checkBaseUrl(answer.trim(), 'the base URL');
  const answer = await session.terminal.prompts.text({
    message: `Base URL of profile "${profile}" (e.g. https://api.example.com/v1)`,
    check: refusalOf(check),
  });
  return check(answer);
}
