import type { ApiTarget } from '../api/client.js';
import { AuthError, UsageError } from '../errors.js';
import { checkBaseUrl } from './base-url.js';
import type { Env } from './paths.js';
import { isProtected, type ConfigData } from './store.js';

/** --profile, else PETS_PROFILE, else the active profile. */
export function chooseProfile(data: ConfigData, profileFlag: string | undefined, env: Env): string {
  const name = profileFlag ?? (env.PETS_PROFILE || undefined) ?? data.activeProfile;
  if (!(name in data.profiles)) {
    const from =
      profileFlag !== undefined ? '--profile' : env.PETS_PROFILE ? 'PETS_PROFILE' : 'the config';
    throw new UsageError(`there is no profile named "${name}" (from ${from})`, {
      hint: `Create it with \`pets profile set ${name} --base-url <url>\`, or see \`pets profile list\`.`,
    });
  }
  return name;
}

/** The profile, base URL and key a request goes out with. Flag > environment > config. */
export function resolveTarget(
  data: ConfigData,
  profileFlag: string | undefined,
  env: Env,
): ApiTarget {
  const profile = chooseProfile(data, profileFlag, env);
  const saved = data.profiles[profile] ?? {};
  const baseUrl = env.PETS_BASE_URL
    ? checkBaseUrl(env.PETS_BASE_URL, 'PETS_BASE_URL')
    : saved.baseUrl;
  if (!baseUrl) {
    throw new UsageError(
      `profile "${profile}" has no base URL`,
      { hint: `Run: pets profile set ${profile} --base-url https://<host>/v1` },
      'no_base_url',
    );
  }
  const apiKey = env.PETS_API_KEY || saved.apiKey;
  if (!apiKey) {
    throw new AuthError('no_api_key', `there is no API key for profile "${profile}"`, {
      hint: `Run \`pets auth login --profile ${profile}\`, or set PETS_API_KEY.`,
    });
  }
  return {
    profile,
    baseUrl,
    apiKey,
    keySource: env.PETS_API_KEY ? 'environment' : 'profile',
    protected: isProtected(profile, saved),
  };
}
