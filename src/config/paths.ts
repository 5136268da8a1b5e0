import { join } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** PETS_CONFIG_DIR, else $XDG_CONFIG_HOME/pets, else ~/.config/pets. */
export function configDir(env: Env): string {
  return env.PETS_CONFIG_DIR || xdgFolder(env, 'XDG_CONFIG_HOME', '.config');
}

/** $XDG_CACHE_HOME/pets, else ~/.cache/pets: what can be rebuilt, such as compiled code. */
export function cacheDir(env: Env): string {
  return xdgFolder(env, 'XDG_CACHE_HOME', '.cache');
}

/** pets's folder under an XDG base directory, or under its usual place in the home folder. */
function xdgFolder(env: Env, variable: 'XDG_CONFIG_HOME' | 'XDG_CACHE_HOME', inHome: string) {
  return join(env[variable] || join(env.HOME || homeFromSystem(), inHome), 'pets');
}

/**
 * The home folder when HOME is not set, as node:os tells it. Loaded only then: node:os would
 * slow every run's start-up, and HOME is nearly always there.
 */
function homeFromSystem(): string {
  return process.getBuiltinModule('node:os').homedir();
}
