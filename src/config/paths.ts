import { homedir } from 'node:os';
import { join } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** PETS_CONFIG_DIR, else $XDG_CONFIG_HOME/pets, else ~/.config/pets. */
export function configDir(env: Env): string {
  if (env.PETS_CONFIG_DIR) return env.PETS_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'pets');
  return join(env.HOME || homedir(), '.config', 'pets');
}

/** $XDG_CACHE_HOME/pets, else ~/.cache/pets: what can be rebuilt, such as compiled code. */
export function cacheDir(env: Env): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'pets');
  return join(env.HOME || homedir(), '.cache', 'pets');
}
