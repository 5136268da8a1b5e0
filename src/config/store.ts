import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Conf } from './conf.js';
import { codeOf, ConfigFileError, FolderWriteError, UsageError } from '../core/errors.js';
import { checkOwnedFolder, createFolder, folderWriteError, readOwnedFile } from './owned-files.js';

export interface Profile {
  baseUrl?: string;
  apiKey?: string;
  /** Creates show a badge and batches ask first. Unset means the default for the name. */
  protected?: boolean;
  /** The store that machines using this profile's key share its rate state through. */
  rateStore?: string;
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
  /**
   * Whether the config file, as last read, can be read by users other than its owner: it
   * holds keys. The next write sets it to 0600.
   */
  readonly readableByOthers: boolean;
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
  return new FileConfigStore(dir);
}

const FOLDER = 'the config folder';

class FileConfigStore implements ConfigStore {
  readonly path: string;
  /**
   * Why the folder could not be made (a read-only home, say): it then holds no config, reads
   * go on without one, as with PETS_API_KEY and PETS_BASE_URL, and a write says why it cannot be.
   */
  private readonly unmade: FolderWriteError | undefined;
  private conf: Promise<Conf<Record<string, unknown>>> | undefined;
  private readable = false;

  constructor(private readonly dir: string) {
    this.path = join(dir, 'config.json');
    try {
      createFolder(dir);
    } catch (error) {
      const unwritable = folderWriteError(error, dir, FOLDER);
      if (!(unwritable instanceof FolderWriteError) || existsSync(dir)) throw unwritable;
      this.unmade = unwritable;
    }
    if (!this.unmade) checkOwnedFolder(dir, FOLDER);
  }

  get readableByOthers(): boolean {
    return this.readable;
  }

  read(): ConfigData {
    const file = this.unmade ? undefined : readOwnedFile(this.path);
    this.readable = file?.readableByOthers ?? false;
    return file?.text === undefined ? normalize({}, this.path) : parseConfig(file.text, this.path);
  }

  async update<T>(change: (data: ConfigData) => T): Promise<T> {
    if (this.unmade) throw this.unmade;
    const release = await this.lock();
    try {
      // Read under the lock, and checked: not a link, the current user's, writable by no one
      // else. conf then writes a temporary file and renames it over this one, as this user.
      const data = this.read();
      const result = change(data);
      await this.write(data);
      return result;
    } finally {
      release();
    }
  }

  private async lock(): Promise<() => void> {
    // Loaded here: commands that only read the config should not pay for it.
    const { describeHolder, fileLock, LockTimeout } = await import('../core/file-lock.js');
    try {
      return await fileLock(this.path).take(LOCK_WAIT_MS);
    } catch (error) {
      if (!(error instanceof LockTimeout)) throw folderWriteError(error, this.dir, FOLDER);
      const who =
        error.busy.holder === undefined ? 'another pets' : `pets (${describeHolder(error.busy)})`;
      throw new UsageError(`the config is locked by ${who}: ${error.busy.lockPath}`, {
        hint: 'Wait for it to finish, then try again.',
      });
    }
  }

  private async write(data: ConfigData): Promise<void> {
    const { chmod } = await import('node:fs/promises');
    try {
      this.conf ??= import('./conf.js').then(
        ({ Conf }) =>
          new Conf({
            cwd: this.dir,
            configName: 'config',
            configFileMode: 0o600,
            projectSuffix: '',
          }),
      );
      (await this.conf).store = { ...data };
      // conf keeps the mode of a file that was there: one that others could read is set right.
      await chmod(this.path, 0o600);
      this.readable = false;
    } catch (error) {
      const unwritable = folderWriteError(error, this.dir, FOLDER);
      if (unwritable !== error) throw unwritable;
      // conf's parse errors quote the file, keys included: say only what failed.
      const code = codeOf(error);
      throw new ConfigFileError(this.path, `cannot be written${code ? ` (${code})` : ''}`);
    }
  }
}

function parseConfig(text: string, path: string): ConfigData {
  try {
    return normalize(JSON.parse(text), path);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // The parse error quotes the file, keys included: say only where the problem is.
    throw new ConfigFileError(path, 'is not valid JSON');
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// Unknown top-level keys mean the file is not ours. __internal__ is conf's own bookkeeping.
const TOP_LEVEL_KEYS = new Set(['activeProfile', 'profiles', '__internal__']);

function normalize(raw: unknown, path: string): ConfigData {
  const { activeProfile = DEFAULT_PROFILE, profiles = {} } = isObject(raw) ? raw : {};
  if (
    !isObject(raw) ||
    Object.keys(raw).some((key) => !TOP_LEVEL_KEYS.has(key)) ||
    typeof activeProfile !== 'string' ||
    !isObject(profiles)
  ) {
    throw new ConfigFileError(path, 'does not hold pets settings');
  }
  // No prototype: "toString" is no profile unless the file has it, and "__proto__" is one like any other.
  const checked: Record<string, Profile> = Object.create(null);
  for (const [name, value] of Object.entries(profiles)) {
    const { baseUrl, apiKey, protected: guarded, rateStore } = isObject(value) ? value : {};
    if (
      !isObject(value) ||
      [baseUrl, apiKey, rateStore].some((text) => text !== undefined && typeof text !== 'string') ||
      (guarded !== undefined && typeof guarded !== 'boolean')
    ) {
      throw new ConfigFileError(path, `has a broken entry for profile "${name}"`);
    }
    checked[name] = {
      ...(baseUrl ? { baseUrl: baseUrl as string } : {}),
      ...(apiKey ? { apiKey: apiKey as string } : {}),
      ...(guarded === undefined ? {} : { protected: guarded as boolean }),
      ...(rateStore ? { rateStore: rateStore as string } : {}),
    };
  }
  for (const name of BUILT_IN_PROFILES) checked[name] ??= {};
  return { activeProfile, profiles: checked };
}
