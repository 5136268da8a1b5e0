import type { ApiTarget, PetsApi } from '../../api/client.js';
import { keyHint } from '../../config/key-hint.js';
import { keyProblem } from '../../config/key-check.js';
import type { Env } from '../../config/paths.js';
import { chooseProfile } from '../../config/resolve-target.js';
import type { ConfigStore } from '../../config/store.js';
import { UsageError } from '../../core/errors.js';

type ConfigDeps = { config: ConfigStore };

export async function login(
  options: { profileFlag?: string; key: string },
  deps: ConfigDeps & { env: Env },
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

export async function logout(
  options: { profileFlag?: string },
  deps: ConfigDeps & { env: Env },
): Promise<{ profile: string; removed: boolean }> {
  return deps.config.update((data) => {
    const name = chooseProfile(data, options.profileFlag, deps.env);
    const saved = data.profiles[name] ?? {};
    const removed = saved.apiKey !== undefined;
    const { apiKey: _dropped, ...rest } = saved;
    data.profiles[name] = rest;
    return { profile: name, removed };
  });
}

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
