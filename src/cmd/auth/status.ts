import type { Command } from 'commander';
import type { PetsApi } from '../../api/client.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import { keyHint } from '../../config/key-hint.js';
import { sourceName } from '../../config/resolve-target.js';
import { quotaFields, showQuota } from '../quota/quota.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

export interface AuthStatus {
  profile: string;
  profileSource: NonNullable<ApiTarget['profileSource']>;
  baseUrl: string;
  baseUrlSource: NonNullable<ApiTarget['baseUrlSource']>;
  key: string;
  keySource: ApiTarget['keySource'];
  /** Whether the server accepted the key on a one-pet list request. */
  valid: boolean;
}

/** Checks the key with the cheapest request the API has; a 401 surfaces as AuthError (exit 4). */
export async function authStatus(
  target: ApiTarget,
  deps: { api: PetsApi; signal?: AbortSignal },
): Promise<AuthStatus> {
  await deps.api.listPets({ limit: 1 }, { signal: deps.signal });
  return {
    profile: target.profile,
    profileSource: target.profileSource ?? 'config',
    baseUrl: target.baseUrl,
    baseUrlSource: target.baseUrlSource ?? 'config',
    key: keyHint(target.apiKey),
    keySource: target.keySource,
    valid: true,
  };
}

export function defineStatus(auth: Command, getSession: SessionSource): void {
  auth
    .command('status')
    .description('show the profile and key in use, and check the key with the server')
    .addHelpText('before', examples('pets auth status', 'pets auth status --json'))
    .action(async () => {
      const session = getSession();
      const target = await session.target();
      const api = await session.api(target);
      const status = await authStatus(target, { api, signal: session.deps.signal });
      // The check just made a request, so the quota comes from the gate without another.
      const quota = await showQuota(target, {
        api,
        now: session.deps.clock.now,
        signal: session.deps.signal,
      });
      if (session.mode === 'json') return session.printJson({ ...status, quota });
      const { renderFields } = await import('../../output/render.js');
      session.print(
        renderFields(
          [
            ['profile', `${status.profile} (from ${sourceName(status.profileSource, 'profile')})`],
            ['base url', `${status.baseUrl} (from ${sourceName(status.baseUrlSource, 'baseUrl')})`],
            ['key', `${status.key} (from ${sourceName(status.keySource, 'key')})`],
            ['valid', 'yes'],
            ...quotaFields(quota, session.deps.clock.now(), session.mode === 'table'),
          ],
          session.mode,
          await session.stdoutColors(),
        ),
      );
    });
}
