import { checkBaseUrl } from '../config/base-url.js';
import { keyHint } from '../config/key-hint.js';
import {
  BUILT_IN_PROFILES,
  checkProfileName,
  isProtected,
  type ConfigStore,
} from '../config/store.js';
import { UsageError } from '../errors.js';

export interface ProfileSummary {
  name: string;
  active: boolean;
  baseUrl: string | null;
  /** The key as shown to people: its last 4 characters at most. */
  key: string;
  protected: boolean;
}

type ConfigDeps = { config: ConfigStore };

function unknownProfile(name: string): UsageError {
  return new UsageError(`there is no profile named "${name}"`, {
    hint: `See \`pets profile list\`, or create it with \`pets profile set ${name} --base-url <url>\`.`,
  });
}

export function listProfiles(deps: ConfigDeps): ProfileSummary[] {
  const data = deps.config.read();
  return Object.entries(data.profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => ({
      name,
      active: name === data.activeProfile,
      baseUrl: profile.baseUrl ?? null,
      key: keyHint(profile.apiKey),
      protected: isProtected(name, profile),
    }));
}

export function showProfile(name: string, deps: ConfigDeps): ProfileSummary {
  const summary = listProfiles(deps).find((profile) => profile.name === name);
  if (!summary) throw unknownProfile(name);
  return summary;
}

export async function useProfile(name: string, deps: ConfigDeps): Promise<ProfileSummary> {
  await deps.config.update((data) => {
    if (!(name in data.profiles)) throw unknownProfile(name);
    data.activeProfile = name;
  });
  return showProfile(name, deps);
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
  return showProfile(name, deps);
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
