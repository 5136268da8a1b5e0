import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostOf } from '../../src/config/base-url.js';
import type { ApiTarget } from '../../src/config/resolve-target.js';
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

/** `count` records to create, in a file beside the config folder of `env`. */
export function recordsFile(env: Record<string, string>, name: string, count: number): string {
  const input = join(env.PETS_CONFIG_DIR!, '..', `${name}.ndjson`);
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ name: `${name} ${i}`, categoryId: 1 }),
  );
  writeFileSync(input, lines.join('\n'));
  return input;
}

/** The target a command resolves: profile staging at `baseUrl`, its key from the config. */
export function stagingTarget(baseUrl: string): ApiTarget {
  return {
    profile: 'staging',
    baseUrl,
    host: hostOf(baseUrl),
    apiKey: 'key_abcdefgh12345678',
    keySource: 'config',
    protected: false,
  };
}

/**
 * A loopback port with nothing listening: port 1, which no test binds. Not a port just freed:
 * on a loaded machine another process took one before pets tried it, and answered.
 */
export const DEAD_PORT = 1;
