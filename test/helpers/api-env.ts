import { tempConfigDir } from './config-dir.js';

/**
 * An environment that points pets at `server` (a sandbox or a fault server) with its key,
 * with a fresh config folder, plus `extra`. Call it in a test or a hook.
 */
export function apiEnv(
  server: { baseUrl: string; key: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PETS_CONFIG_DIR: tempConfigDir(),
    PETS_BASE_URL: server.baseUrl,
    PETS_API_KEY: server.key,
    ...extra,
  };
}
