import { keyHint } from '../../config/key-hint.js';
import type { Env } from '../../config/paths.js';
import {
  checkProfileExists,
  chooseProfile,
  effectiveSettings,
  sourceName,
  type ChosenProfile,
  type SettingSource,
} from '../../config/resolve-target.js';
import { isProtected, type ConfigStore } from '../../config/store.js';
import { checkRateStore } from '../../config/rate-store.js';
import type { Column } from '../../output/render.js';
import type { Session } from '../shared/session.js';

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
  /** The rate store shared by machines, without its password; null: files on this machine. */
  rateStore: string | null;
  rateStoreSource: 'environment' | 'config' | null;
}

export type ConfigDeps = { config: ConfigStore };
/** What decides the profile in use and overrides its settings: --profile and the environment. */
export type ViewDeps = ConfigDeps & { env: Env; profileFlag?: string };

/** The profile commands use now, or undefined when --profile or PETS_PROFILE names none. */
export function profileInUse(deps: ViewDeps): ChosenProfile | undefined {
  try {
    return chooseProfile(deps.config.read(), deps.profileFlag, deps.env);
  } catch {
    return undefined;
  }
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
        ...rateStoreShown(deps.env.PETS_RATE_STORE, profile.rateStore),
      };
    });
}

/** The rate store a profile's commands use, as its URL without a password (never quoted bad). */
function rateStoreShown(
  fromEnv: string | undefined,
  saved: string | undefined,
): Pick<ProfileSummary, 'rateStore' | 'rateStoreSource'> {
  const [text, source] = fromEnv ? [fromEnv, 'environment' as const] : [saved, 'config' as const];
  if (!text) return { rateStore: null, rateStoreSource: null };
  try {
    return { rateStore: checkRateStore(text, 'it', source).shown, rateStoreSource: source };
  } catch {
    return { rateStore: '(not a Redis URL)', rateStoreSource: source };
  }
}

export function showProfile(name: string, deps: ViewDeps): ProfileSummary {
  checkProfileExists(deps.config.read(), name);
  return listProfiles(deps).find((profile) => profile.name === name)!;
}

/** A profile as saved in the config, without the environment's overrides. */
export function savedProfile(name: string, deps: ConfigDeps): ProfileSummary {
  return showProfile(name, { config: deps.config, env: {} });
}

/**
 * Profiles' columns. On a terminal a value the environment set names its variable; TSV keeps
 * the bare values for scripts (--json has the sources as fields).
 */
function profileColumns(mode: 'table' | 'tsv'): readonly Column<ProfileSummary>[] {
  const withSource = (value: string, source: string | null, variable: string) =>
    mode === 'table' && source === 'environment' ? `${value} (${variable})` : value;
  return [
    {
      title: 'ACTIVE',
      text: (p) => (p.active ? '*' : ''),
      color: (_p, text, colors) => colors.green(text),
    },
    { title: 'NAME', text: (p) => p.name, whole: true },
    {
      title: 'BASE URL',
      text: (p) => withSource(p.baseUrl ?? '(not set)', p.baseUrlSource, 'PETS_BASE_URL'),
    },
    { title: 'KEY', text: (p) => withSource(p.key, p.keySource, 'PETS_API_KEY') },
    { title: 'PROTECTED', text: (p) => (p.protected ? 'yes' : '') },
    {
      title: 'RATE STORE',
      text: (p) => withSource(p.rateStore ?? '', p.rateStoreSource, 'PETS_RATE_STORE'),
    },
  ];
}

function profileFields(p: ProfileSummary): Array<[string, string]> {
  const from = (source: SettingSource | null, variable: string) =>
    source ? ` (from ${sourceName(source, variable)})` : '';
  return [
    ['name', p.name],
    ['in use', p.active ? `yes${from(p.activeSource, 'PETS_PROFILE')}` : 'no'],
    ['base url', `${p.baseUrl ?? '(not set)'}${from(p.baseUrlSource, 'PETS_BASE_URL')}`],
    ['key', `${p.key}${from(p.keySource, 'PETS_API_KEY')}`],
    ['protected', p.protected ? 'yes' : 'no'],
    [
      'rate store',
      `${p.rateStore ?? '(none: files on this machine)'}${from(p.rateStoreSource, 'PETS_RATE_STORE')}`,
    ],
  ];
}

export async function printProfiles(
  session: Session,
  profiles: ProfileSummary[],
  asFields: boolean,
) {
  if (session.terminal.mode === 'json')
    return session.terminal.printJson(asFields ? profiles[0] : profiles);
  if (asFields && profiles[0] && session.terminal.mode === 'table') {
    await session.terminal.printFields(profileFields(profiles[0]));
  } else {
    await session.terminal.printRows(profileColumns(session.terminal.mode), profiles);
  }
}

/**
 * Warnings for what the environment (or --profile) changes behind the config's back: the
 * profile in use, its address, its key. `activeName` is the config's active profile.
 */
export async function warnOverrides(session: Session, activeName: string): Promise<void> {
  const { env } = session;
  const flag = session.globals.profile;
  const chosen = flag ?? (env.PETS_PROFILE || undefined);
  if (chosen !== undefined && chosen !== activeName) {
    const chosenBy = flag === undefined ? `PETS_PROFILE=${chosen}` : `--profile ${flag}`;
    await session.terminal.warn(
      `${chosenBy} overrides the active profile "${activeName}": commands use "${chosen}"` +
        (flag === undefined ? ' until PETS_PROFILE is unset.' : '.'),
      { code: 'profile_overridden' },
    );
  }
  if (env.PETS_BASE_URL) {
    await session.terminal.warn("PETS_BASE_URL is set and overrides every profile's base URL.", {
      code: 'base_url_overridden',
    });
  }
  if (env.PETS_API_KEY)
    await session.terminal.warn("PETS_API_KEY is set and overrides every profile's key.", {
      code: 'key_overridden',
    });
}
