import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMPTY_STATE, type GateState } from './policy.js';
import { sha256Hex } from './sha256.js';

export interface StateFile {
  readonly path: string;
  load(nowMs: number): GateState;
  save(state: GateState): void;
}

/**
 * Names the state of one key at one address without holding the key: a SHA-256 prefix is
 * enough to tell keys apart and says nothing usable about a random key.
 */
export function keyFingerprint(baseUrl: string, apiKey: string): string {
  return sha256Hex(`${baseUrl}\n${apiKey}`).slice(0, 16);
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Reads back only what is well-formed and still ahead of `nowMs`; anything else is forgotten. */
function revive(raw: unknown, nowMs: number): GateState {
  if (typeof raw !== 'object' || raw === null) return EMPTY_STATE;
  const saved = raw as Record<string, unknown>;
  const state: GateState = { consecutive429s: finite(saved.consecutive429s) ?? 0 };
  const cooldownUntilMs = finite(saved.cooldownUntilMs);
  if (cooldownUntilMs !== undefined && cooldownUntilMs > nowMs) {
    state.cooldownUntilMs = cooldownUntilMs;
    if (typeof saved.cooldownCode === 'string') state.cooldownCode = saved.cooldownCode;
  }
  const lastSendAtMs = finite(saved.lastSendAtMs);
  if (lastSendAtMs !== undefined && lastSendAtMs <= nowMs + 3_600_000)
    state.lastSendAtMs = lastSendAtMs;
  const quota = saved.quota as Record<string, unknown> | undefined;
  const limit = finite(quota?.limit);
  const remaining = finite(quota?.remaining);
  const resetAtMs = finite(quota?.resetAtMs);
  if (
    limit !== undefined &&
    remaining !== undefined &&
    resetAtMs !== undefined &&
    resetAtMs > nowMs
  ) {
    state.quota = { limit, remaining, resetAtMs };
  }
  return state;
}

/**
 * The last quota and any cooldown of one profile and key, shared by successive pets
 * processes so that a script loop waits instead of sending into a cooldown. Written by
 * rename, so a reader never sees half a file; a missing or corrupt file is an empty state.
 */
export function openStateFile(configDir: string, profile: string, fingerprint: string): StateFile {
  const dir = join(configDir, 'state');
  const path = join(dir, `ratelimit-${profile}-${fingerprint}.json`);
  return {
    path,
    load(nowMs) {
      try {
        return revive(JSON.parse(readFileSync(path, 'utf8')), nowMs);
      } catch {
        return EMPTY_STATE;
      }
    },
    save(state) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(temp, `${JSON.stringify({ version: 1, ...state })}\n`, { mode: 0o600 });
      renameSync(temp, path);
    },
  };
}
