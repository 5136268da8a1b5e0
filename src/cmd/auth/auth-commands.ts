import type { ReadStream } from 'node:tty';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { examples, type SessionSource } from '../root.js';
import { readAll } from '../pets/read-ids.js';
import type { Session } from '../shared/session.js';

const MAX_KEY_INPUT_BYTES = 64 * 1024;

async function readKey(run: Session, withKey: boolean): Promise<string> {
  const { io } = run.deps;
  const firstLine = (text: string) => text.split(/\r?\n/)[0] ?? '';
  if (withKey && !io.stdinIsTTY) {
    return firstLine(await readAll(io.stdin, MAX_KEY_INPUT_BYTES, run.deps.signal));
  }
  // --with-key with a terminal on stdin: a person is there, so the hidden prompt serves them
  // (a pasted key is not echoed); with --no-input, they are told how to end the input.
  if (withKey && !run.canPrompt) {
    io.stderr.write('Paste the key, then press Enter and Ctrl-D (Ctrl-C to cancel):\n');
    return firstLine(await readAll(io.stdin, MAX_KEY_INPUT_BYTES, run.deps.signal));
  }
  if (!run.canPrompt) {
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

export function registerAuthCommands(program: Command, session: SessionSource): void {
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

  auth
    .command('login')
    .description('store an API key for the profile (never taken from the command line)')
    .addHelpText(
      'before',
      examples('pets auth login', 'pets auth login --profile staging --with-key < staging.key'),
    )
    .option('--with-key', 'read the key from stdin (from a terminal: the hidden prompt)')
    .action(async (options: { withKey?: boolean }) => {
      const run = session();
      const key = await readKey(run, options.withKey === true);
      run.secrets.add(key.trim());
      const { login } = await import('./auth.js');
      const saved = await login(
        { profileFlag: run.globals.profile, key },
        { config: await run.config(), env: run.deps.env },
      );
      // The host is named so that a planted or mistyped base URL is seen before the key goes there.
      run.notice(
        saved.baseUrl
          ? `Saved the key ${saved.key} for profile "${saved.profile}", which sends it to ${new URL(saved.baseUrl).host}.`
          : `Saved the key ${saved.key} for profile "${saved.profile}", which has no base URL yet: run \`pets profile set ${saved.profile} --base-url https://<host>/v1\`.`,
      );
      if (run.deps.env.PETS_API_KEY) {
        await run.warn('PETS_API_KEY is set and overrides the saved key until it is unset.');
      }
    });

  auth
    .command('logout')
    .description("remove the profile's stored API key")
    .addHelpText('before', examples('pets auth logout', 'pets auth logout --profile staging'))
    .action(async () => {
      const run = session();
      const { logout } = await import('./auth.js');
      const result = await logout(
        { profileFlag: run.globals.profile },
        { config: await run.config(), env: run.deps.env },
      );
      run.notice(
        result.removed
          ? `Removed the key of profile "${result.profile}".`
          : `Profile "${result.profile}" had no stored key.`,
      );
    });

  auth
    .command('status')
    .description('show the profile and key in use, and check the key with the server')
    .addHelpText('before', examples('pets auth status', 'pets auth status --json'))
    .action(async () => {
      const run = session();
      const target = await run.target();
      const [{ authStatus }, api] = await Promise.all([import('./auth.js'), run.api(target)]);
      const status = await authStatus(target, { api, signal: run.deps.signal });
      // The check just made a request, so the quota comes from the gate without another.
      const [{ showQuota }, { quotaFields }, { sourceName }] = await Promise.all([
        import('../quota/quota.js'),
        import('../quota/quota-command.js'),
        import('../../config/resolve-target.js'),
      ]);
      const quota = await showQuota(target, {
        api,
        now: run.deps.clock.now,
        signal: run.deps.signal,
      });
      if (run.mode === 'json') return run.printJson({ ...status, quota });
      const { renderFields } = await import('../../output/render.js');
      run.print(
        renderFields(
          [
            ['profile', `${status.profile} (from ${sourceName(status.profileSource, 'profile')})`],
            ['base url', `${status.baseUrl} (from ${sourceName(status.baseUrlSource, 'baseUrl')})`],
            ['key', `${status.key} (from ${sourceName(status.keySource, 'key')})`],
            ['valid', 'yes'],
            ...quotaFields(quota, run.deps.clock.now(), run.mode === 'table'),
          ],
          run.mode,
          await run.stdoutColors(),
        ),
      );
    });
}
