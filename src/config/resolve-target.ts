import { AuthError, UsageError } from '../core/errors.js';
import { closest } from '../core/suggest.js';
import { checkBaseUrl, hostOf } from './base-url.js';
import { keyProblem } from './key-check.js';
import type { Env } from './paths.js';
import { checkRateStore, type RateStoreAddress } from './rate-store.js';
import { isProtected, type ConfigData } from './store.js';

/** The server and key a command talks to, and where each came from. */
export interface ApiTarget {
  profile: string;
  /** What chose the profile: --profile, PETS_PROFILE or the config's active profile. */
  profileSource?: 'flag' | 'environment' | 'config';
  baseUrl: string;
  /** The base URL's host and port, as messages name it. */
  host: string;
  baseUrlSource?: 'environment' | 'config';
  apiKey: string;
  keySource: 'environment' | 'config';
  /** Creates on this profile show a badge, and batches ask first. */
  protected: boolean;
  /** The store shared by machines on this key (PETS_RATE_STORE, or the profile's); else files. */
  rateStore?: RateStoreAddress;
}

/** Where a setting in use came from. Precedence: flag > environment > config. */
export type SettingSource = 'flag' | 'environment' | 'config';

/** The profile a command uses, and what chose it. */
export interface ChosenProfile {
  name: string;
  source: SettingSource;
}

/** --profile, else PETS_PROFILE, else the active profile, and which of them it was. */
export function chooseProfile(
  data: ConfigData,
  profileFlag: string | undefined,
  env: Env,
): ChosenProfile {
  const chosen: ChosenProfile =
    profileFlag !== undefined
      ? { name: profileFlag, source: 'flag' }
      : env.PETS_PROFILE
        ? { name: env.PETS_PROFILE, source: 'environment' }
        : { name: data.activeProfile, source: 'config' };
  checkProfileExists(data, chosen.name, chosen.source);
  return chosen;
}

/** Throws unless the config has a profile named `name` (from `source`), naming the closest it has. */
export function checkProfileExists(data: ConfigData, name: string, source?: SettingSource): void {
  if (Object.hasOwn(data.profiles, name)) return;
  const meant = closest(name, Object.keys(data.profiles));
  const from = source ? ` (from ${sourceName(source, 'PETS_PROFILE')})` : '';
  throw new UsageError(
    `there is no profile named "${name}"${from}${meant ? `; did you mean "${meant}"?` : ''}`,
    {
      hint: meant
        ? 'See `pets profile list`.'
        : `See \`pets profile list\`, or make it: pets profile set ${name} --base-url <url>`,
    },
  );
}

/** How people read a source: the flag, the environment `variable`, or the config. */
export function sourceName(source: SettingSource, variable: string): string {
  return source === 'config' ? 'the config' : source === 'flag' ? '--profile' : variable;
}

/** A profile's address and key as a request would use them: the environment beats the config. */
export interface EffectiveSettings {
  baseUrl: string | undefined;
  baseUrlSource: 'environment' | 'config' | null;
  apiKey: string | undefined;
  keySource: 'environment' | 'config' | null;
}

/** The settings as found, unchecked: listing them must work even when one is wrong. */
export function effectiveSettings(data: ConfigData, profile: string, env: Env): EffectiveSettings {
  const saved = data.profiles[profile] ?? {};
  const baseUrl = env.PETS_BASE_URL || saved.baseUrl;
  const apiKey = env.PETS_API_KEY || saved.apiKey;
  return {
    baseUrl,
    baseUrlSource: env.PETS_BASE_URL ? 'environment' : baseUrl ? 'config' : null,
    apiKey,
    keySource: env.PETS_API_KEY ? 'environment' : apiKey ? 'config' : null,
  };
}

/**
 * The address checked before anything is sent. A saved one is checked again: one saved before
 * the checks were this strict (or edited by hand) would otherwise fail every command with a
 * misleading 404.
 */
export function checkedBaseUrl(profile: string, settings: EffectiveSettings): string | undefined {
  if (!settings.baseUrl) return undefined;
  if (settings.baseUrlSource === 'environment') {
    return checkBaseUrl(settings.baseUrl, 'PETS_BASE_URL');
  }
  return checkBaseUrl(
    settings.baseUrl,
    `the base URL of profile "${profile}"`,
    (fixed) => `Run: pets profile set ${profile} --base-url ${fixed}`,
  );
}

/** The profile, base URL and key a request goes out with. Flag > environment > config. */
export function resolveTarget(
  data: ConfigData,
  profileFlag: string | undefined,
  env: Env,
): ApiTarget {
  const { name: profile, source: profileSource } = chooseProfile(data, profileFlag, env);
  const settings = effectiveSettings(data, profile, env);
  const { baseUrlSource, apiKey, keySource } = settings;
  const baseUrl = checkedBaseUrl(profile, settings);
  if (!baseUrl) {
    throw new UsageError(`profile "${profile}" has no base URL`, {
      code: 'no_base_url',
      // The guided path first, as the README gives it; the flag form for scripts.
      hint: `Run: pets auth login${profile === 'production' ? '' : ` --profile ${profile}`} (it asks for the base URL and the key), or in a script: pets profile set ${profile} --base-url https://<host>/v1`,
    });
  }
  if (!apiKey) {
    throw new AuthError('no_api_key', `there is no API key for profile "${profile}"`, {
      hint: `Run \`pets auth login --profile ${profile}\`, or set PETS_API_KEY.`,
    });
  }
  const problem = keyProblem(apiKey);
  if (problem) {
    throw new AuthError(
      'invalid_api_key',
      keySource === 'environment'
        ? `PETS_API_KEY ${problem}; nothing was sent`
        : `the API key of profile "${profile}" ${problem}; nothing was sent`,
      {
        hint:
          keySource === 'environment'
            ? 'Check how PETS_API_KEY is set: the whole key as issued, without a CR from a Windows file or a pasted character.'
            : `Run \`pets auth login --profile ${profile}\` to store a valid key.`,
      },
    );
  }
  return {
    profile,
    profileSource,
    baseUrl,
    host: hostOf(baseUrl),
    baseUrlSource: baseUrlSource ?? 'config',
    apiKey,
    keySource: keySource ?? 'config',
    protected: isProtected(profile, data.profiles[profile]),
    ...rateStoreOf(data, profile, env),
  };
}

/** The rate store the profile's key is shared through, checked: PETS_RATE_STORE beats the profile. */
function rateStoreOf(
  data: ConfigData,
  profile: string,
  env: Env,
): { rateStore?: RateStoreAddress } {
  if (env.PETS_RATE_STORE) {
    return { rateStore: checkRateStore(env.PETS_RATE_STORE, 'PETS_RATE_STORE', 'environment') };
  }
  const saved = data.profiles[profile]?.rateStore;
  return saved
    ? { rateStore: checkRateStore(saved, `the rate store of profile "${profile}"`, 'config') }
    : {};
}
