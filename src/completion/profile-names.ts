import { existsSync } from 'node:fs';
import { configDir, type Env } from '../config/paths.js';
import { BUILT_IN_PROFILES, openConfigStore } from '../config/store.js';

/**
 * The profile names of the config, for completion. Never throws: a config that cannot be
 * read gives no names, so pressing Tab never prints an error. A config folder that does not
 * exist yet is not created (opening the store would): it holds the built-in profiles only.
 */
export function profileNames(env: Env): string[] {
  try {
    const dir = configDir(env);
    if (!existsSync(dir)) return [...BUILT_IN_PROFILES];
    return Object.keys(openConfigStore(dir).read().profiles);
  } catch {
    return [];
  }
}
