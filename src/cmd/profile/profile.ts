import { checkBaseUrl } from '../../config/base-url.js';
import { keyHint } from '../../config/key-hint.js';
import type { Env } from '../../config/paths.js';
import {
  chooseProfileWithSource,
  effectiveSettings,
  type ChosenProfile,
  type SettingSource,
} from '../../config/resolve-target.js';
import {
  BUILT_IN_PROFILES,
  checkProfileName,
  isProtected,
  type ConfigStore,
} from '../../config/store.js';
import { UsageError } from '../../core/errors.js';

/** A profile as commands would use it now: environment variables applied. */
export interface ProfileSummary {
  name: string;
  /** Whether commands use this profile now (--profile, PETS_PROFILE or the active profile). */
  active: boolean;
  /** What made it the one in use; null when it is not. */
  activeSource: SettingSource | null;
  baseUrl: string | null;
  baseUrlSource: 'environment' | 'config' | null;
  /** The key as shown to people: its last 4 characters at most. */
  key: string;
  keySource: 'environment' | 'config' | null;
  protected: boolean;
}

type ConfigDeps = { config: ConfigStore };
/** What decides the profile in use and overrides its settings: --profile and the environment. */
type ViewDeps = ConfigDeps & { env: Env; profileFlag?: string };

/** The profile commands use now, or undefined when --profile or PETS_PROFILE names none. */
export function profileInUse(deps: ViewDeps): ChosenProfile | undefined {
  try {
    return chooseProfileWithSource(deps.config.read(), deps.profileFlag, deps.env);
  } catch {
    return undefined;
  }
}

function unknownProfile(name: string): UsageError {
  return new UsageError(`there is no profile named "${name}"`, {
    hint: `See \`pets profile list\`, or create it with \`pets profile set ${name} --base-url <url>\`.`,
  });
}

export function listProfiles(deps: ViewDeps): ProfileSummary[] {
  const data = deps.config.read();
  const inUse = profileInUse(deps);
  return Object.entries(data.profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => {
      const settings = effectiveSettings(data, name, deps.env);
      const active = name === inUse?.name;
      return {
        name,
        active,
        activeSource: active ? inUse.source : null,
        baseUrl: settings.baseUrl ?? null,
        baseUrlSource: settings.baseUrlSource,
        key: keyHint(settings.apiKey),
        keySource: settings.keySource,
        protected: isProtected(name, profile),
      };
    });
}

export function showProfile(name: string, deps: ViewDeps): ProfileSummary {
  const summary = listProfiles(deps).find((profile) => profile.name === name);
  if (!summary) throw unknownProfile(name);
  return summary;
}

/** A profile as saved in the config, without the environment's overrides. */
export function savedProfile(name: string, deps: ConfigDeps): ProfileSummary {
  return showProfile(name, { config: deps.config, env: {} });
}

export async function useProfile(name: string, deps: ConfigDeps): Promise<ProfileSummary> {
  await deps.config.update((data) => {
    if (!(name in data.profiles)) throw unknownProfile(name);
    data.activeProfile = name;
  });
  return savedProfile(name, deps);
}

/** Creates the profile if it does not exist yet, or changes what is given; keeps its key. */
export async function setProfile(
  name: string,
  settings: { baseUrl?: string; protected?: boolean },
  deps: ConfigDeps,
): Promise<ProfileSummary> {
  checkProfileName(name);
  if (settings.baseUrl === undefined && settings.protected === undefined) {
    throw new UsageError('profile set needs --base-url, --protected or --no-protected', {
      hint: `Example: pets profile set ${name} --base-url https://api.example.com/v1`,
    });
  }
  const baseUrl =
    settings.baseUrl === undefined ? undefined : checkBaseUrl(settings.baseUrl, '--base-url');
  await deps.config.update((data) => {
    data.profiles[name] = {
      ...data.profiles[name],
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(settings.protected === undefined ? {} : { protected: settings.protected }),
    };
  });
  return savedProfile(name, deps);
}

export interface RemovedProfile {
  name: string;
  /** production and staging always exist: removing one clears it instead. */
  cleared: boolean;
  /** The profile that became active, when the removed one was active. */
  nowActive?: string;
}

export async function removeProfile(name: string, deps: ConfigDeps): Promise<RemovedProfile> {
  return deps.config.update((data) => {
    if (!(name in data.profiles)) throw unknownProfile(name);
    const builtIn = (BUILT_IN_PROFILES as readonly string[]).includes(name);
    if (builtIn) {
      data.profiles[name] = {};
      return { name, cleared: true };
    }
    delete data.profiles[name];
    if (data.activeProfile !== name) return { name, cleared: false };
    data.activeProfile = BUILT_IN_PROFILES[0];
    return { name, cleared: false, nowActive: data.activeProfile };
  });
}
