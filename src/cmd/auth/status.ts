import type { Command } from 'commander';
import type { PetsApi } from '../../api/client.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import { keyHint } from '../../config/key-hint.js';
import { sourceName } from '../../config/resolve-target.js';
import { quotaFields, showQuota, type QuotaReport } from '../quota/quota.js';
import { examples } from '../shared/help-text.js';
import type { Session, SessionSource } from '../shared/session.js';
import { AuthError } from '../../core/errors.js';

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

/** What is in use and where each came from, before the server is asked. */
export function statusOf(target: ApiTarget, valid: boolean): AuthStatus {
  return {
    profile: target.profile,
    profileSource: target.profileSource ?? 'config',
    baseUrl: target.baseUrl,
    baseUrlSource: target.baseUrlSource ?? 'config',
    key: keyHint(target.apiKey),
    keySource: target.keySource,
    valid,
  };
}

/** Checks the key with the cheapest request the API has; a 401 surfaces as AuthError (exit 4). */
export async function authStatus(
  target: ApiTarget,
  deps: { api: PetsApi; signal?: AbortSignal },
): Promise<AuthStatus> {
  await deps.api.listPets({ limit: 1 }, { signal: deps.signal });
  return statusOf(target, true);
}

export function defineStatus(auth: Command, getSession: SessionSource): void {
  auth
    .command('status')
    .description(
      'show the profile and key in use, and check the key with one GET, saying what it sent and what came back',
    )
    .addHelpText('before', examples('pets auth status', 'pets auth status --json'))
    .action(async () => {
      const session = getSession();
      const target = await session.target();
      const { api, gate } = await session.api(target);
      let status: AuthStatus;
      try {
        status = await authStatus(target, { api, signal: session.signal });
      } catch (error) {
        // A refused key is when the profile, address and key in use matter most: they are
        // shown, then the error (exit 4).
        if (error instanceof AuthError) await printStatus(session, statusOf(target, false));
        throw error;
      }
      // The check just made a request, so the quota comes from the gate without another:
      // from that answer of the server's, not from an earlier one.
      const quota: QuotaReport = {
        ...(await showQuota(target, {
          api,
          gate,
          now: session.clock.now,
          signal: session.signal,
        })),
        source: 'server',
      };
      await printStatus(session, status, quota);
    });
}

async function printStatus(
  session: Session,
  status: AuthStatus,
  quota?: QuotaReport,
): Promise<void> {
  if (session.terminal.mode === 'json')
    return session.terminal.printJson(quota ? { ...status, quota } : status);
  await session.terminal.printFields([
    ['profile', `${status.profile} (from ${sourceName(status.profileSource, 'PETS_PROFILE')})`],
    ['base url', `${status.baseUrl} (from ${sourceName(status.baseUrlSource, 'PETS_BASE_URL')})`],
    ['key', `${status.key} (from ${sourceName(status.keySource, 'PETS_API_KEY')})`],
    [
      'sent',
      `GET /pets?limit=1 to check the key; the server answered ${status.valid ? '200' : '401'}`,
    ],
    ['valid', status.valid ? 'yes' : 'no: the server refused it (401)'],
    ...(quota ? quotaFields(quota, session.clock.now(), session.terminal.mode === 'table') : []),
  ]);
}
