import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Conf } from './conf.js';
import { ConfigFileError, UsageError } from '../core/errors.js';
import { checkConfigFolder, readOwnedFile } from './owned-files.js';

export interface Profile {
  baseUrl?: string;
  apiKey?: string;
  /** Creates show a badge and batches ask first. Unset means the default for the name. */
  protected?: boolean;
}

/** production guards itself until told otherwise; any profile can be marked. */
export function isProtected(name: string, profile: Profile | undefined): boolean {
  return profile?.protected ?? name === 'production';
}

export interface ConfigData {
  activeProfile: string;
  profiles: Record<string, Profile>;
}

export const BUILT_IN_PROFILES = ['production', 'staging'] as const;
const DEFAULT_PROFILE = 'production';
// Another pets holds the config for one read and one write: longer than this, it is stuck.
const LOCK_WAIT_MS = 5_000;

export interface ConfigStore {
  readonly path: string;
  read(): ConfigData;
  /** Read-modify-write under a lock file, so concurrent `pets` processes do not lose updates. */
  update<T>(change: (data: ConfigData) => T): Promise<T>;
}

export function checkProfileName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(name)) {
    throw new UsageError(`"${name}" is not a valid profile name`, {
      hint: 'Use letters, digits, "-" and "_", starting with a letter or digit.',
    });
  }
  return name;
}

/**
 * Opens the config in `dir` (created 0700), stored by conf with file mode 0600. A folder or
 * file another user owns or can write is refused (owned-files.ts). Reading
 * needs no conf: the file is plain JSON, and conf's import (ajv and all) costs start-up
 * time that read-only commands should not pay. conf is loaded for the first write.
 */
export function openConfigStore(dir: string): ConfigStore {
  const path = join(dir, 'config.json');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkConfigFolder(dir);
  let conf: Promise<Conf<Record<string, unknown>>> | undefined;

  const read = (): ConfigData => {
    const text = readOwnedFile(path);
    if (text === undefined) return normalize({}, path);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      // The parse error quotes the file, keys included: say only where the problem is.
      throw new ConfigFileError(path, 'is not valid JSON');
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new ConfigFileError(path, 'does not hold pets settings');
    }
    return normalize(raw as Record<string, unknown>, path);
  };

  const update = async <T>(change: (data: ConfigData) => T): Promise<T> => {
    // Loaded here: commands that only read the config should not pay for fs/promises.
    const [{ fileLock, LockTimeout }, { chmod }] = await Promise.all([
      import('../core/file-lock.js'),
      import('node:fs/promises'),
    ]);
    let release: () => void;
    try {
      release = await fileLock(path).take(LOCK_WAIT_MS);
    } catch (error) {
      if (!(error instanceof LockTimeout)) throw error;
      const who =
        error.busy.holder === undefined ? 'another pets' : `pets (process ${error.busy.holder})`;
      throw new UsageError(`the config is locked by ${who}: ${error.busy.lockPath}`, {
        hint: 'Wait for it to finish, then try again.',
      });
    }
    try {
      // Read under the lock, and checked: not a link, the current user's, writable by no one
      // else. conf then writes a temporary file and renames it over this one, as this user.
      const data = read();
      const result = change(data);
      try {
        conf ??= import('./conf.js').then(
          ({ Conf }) =>
            new Conf({ cwd: dir, configName: 'config', configFileMode: 0o600, projectSuffix: '' }),
        );
        (await conf).store = { ...data };
        await chmod(path, 0o600);
      } catch (error) {
        // conf's parse errors quote the file, keys included: say only what failed.
        const code = (error as NodeJS.ErrnoException | null)?.code;
        throw new ConfigFileError(path, `cannot be written${code ? ` (${code})` : ''}`);
      }
      return result;
    } finally {
      release();
    }
  };

  return { path, read, update };
}

// Unknown top-level keys mean the file is not ours. __internal__ is conf's own bookkeeping.
const TOP_LEVEL_KEYS = new Set(['activeProfile', 'profiles', '__internal__']);

function normalize(raw: Record<string, unknown>, path: string): ConfigData {
  const { activeProfile = DEFAULT_PROFILE, profiles = {} } = raw;
  if (
    Object.keys(raw).some((key) => !TOP_LEVEL_KEYS.has(key)) ||
    typeof activeProfile !== 'string' ||
    typeof profiles !== 'object' ||
    profiles === null ||
    Array.isArray(profiles)
  ) {
    throw new ConfigFileError(path, 'does not hold pets settings');
  }
  const checked: Record<string, Profile> = {};
  for (const [name, value] of Object.entries(profiles as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null) {
      throw new ConfigFileError(path, `has a broken entry for profile "${name}"`);
    }
    const { baseUrl, apiKey, protected: guarded } = value as Record<string, unknown>;
    if (
      (baseUrl !== undefined && typeof baseUrl !== 'string') ||
      (apiKey !== undefined && typeof apiKey !== 'string') ||
      (guarded !== undefined && typeof guarded !== 'boolean')
    ) {
      throw new ConfigFileError(path, `has a broken entry for profile "${name}"`);
    }
    checked[name] = {
      ...(baseUrl ? { baseUrl } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(guarded === undefined ? {} : { protected: guarded }),
    };
  }
  for (const name of BUILT_IN_PROFILES) checked[name] ??= {};
  return { activeProfile, profiles: checked };
}
