import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hash } from 'node:crypto';
import { join } from 'node:path';
import { EMPTY_STATE, type GateState } from './policy.js';
import { fileLock, type FileLock } from '../core/file-lock.js';

/**
 * Where the gate keeps a key's state. `update` is atomic: every pets process using the key
 * reads, changes and writes the state as one step, so none overwrites what another learnt.
 */
export interface StateStore {
  update<T>(change: (state: GateState) => { state: GateState; result: T }): T;
  read(): GateState;
  /** Throws what writing the state would meet (a full disk, a folder pets may not write). */
  check?(): void;
  /** The folder the state lives in, to name in messages. */
  readonly folder?: string;
}

// What a check writes: more than a state of many processes takes, so that a disk with room
// for the check has room for the state.
const CHECK_BYTES = 4096;

/** The state of one process alone: for tests, and when no config folder is known. */
export function memoryStore(initial: GateState = EMPTY_STATE): StateStore {
  let state = initial;
  return {
    update(change) {
      const { state: next, result } = change(state);
      state = next;
      return result;
    },
    read: () => state,
  };
}

/**
 * Names the state of one key at one API origin from the key's fingerprint, never the key.
 * The profile plays no part, so two profiles with one key share one state.
 */
export function stateName(origin: string, keyFingerprint: string): string {
  return hash('sha256', `${origin}\n${keyFingerprint}`, 'hex').slice(0, 16);
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Reads back only what is well formed; a missing or corrupt file is an empty state. */
function revive(raw: unknown): GateState {
  if (typeof raw !== 'object' || raw === null) return EMPTY_STATE;
  const saved = raw as Record<string, unknown>;
  const state: GateState = { consecutive429s: finite(saved.consecutive429s) ?? 0 };
  const cooldownUntilMs = finite(saved.cooldownUntilMs);
  if (cooldownUntilMs !== undefined) state.cooldownUntilMs = cooldownUntilMs;
  if (typeof saved.cooldownCode === 'string') state.cooldownCode = saved.cooldownCode;
  const quota = saved.quota as Record<string, unknown> | undefined;
  const limit = finite(quota?.limit);
  const remaining = finite(quota?.remaining);
  const resetAtMs = finite(quota?.resetAtMs);
  if (limit !== undefined && remaining !== undefined && resetAtMs !== undefined) {
    state.quota = { limit, remaining, resetAtMs };
  }
  const probe = saved.probe as Record<string, unknown> | undefined;
  const probeUntil = finite(probe?.untilMs);
  if (typeof probe?.id === 'string' && probeUntil !== undefined) {
    state.probe = { id: probe.id, untilMs: probeUntil };
  }
  if (typeof saved.inFlight === 'object' && saved.inFlight !== null) {
    state.inFlight = {};
    for (const [id, claim] of Object.entries(saved.inFlight as Record<string, unknown>)) {
      const fields = claim as Record<string, unknown> | null;
      const untilMs = finite(fields?.untilMs);
      const ended = finite(fields?.ended);
      if (untilMs !== undefined && ended !== undefined) state.inFlight[id] = { untilMs, ended };
    }
  }
  if (typeof saved.demand === 'object' && saved.demand !== null) {
    for (const [owner, said] of Object.entries(saved.demand as Record<string, unknown>)) {
      const fields = said as Record<string, unknown> | null;
      const count = finite(fields?.count);
      const untilMs = finite(fields?.untilMs);
      if (count !== undefined && untilMs !== undefined) {
        const short = fields?.short === true ? { short: true } : {};
        state.demand = { ...state.demand, [owner]: { count, untilMs, ...short } };
      }
    }
  }
  const spread = saved.spread as Record<string, unknown> | undefined;
  const spreadReset = finite(spread?.resetAtMs);
  const spreadFrom = finite(spread?.fromMs);
  const spreadRemaining = finite(spread?.remaining);
  if (spreadReset !== undefined && spreadFrom !== undefined && spreadRemaining !== undefined) {
    state.spread = { resetAtMs: spreadReset, fromMs: spreadFrom, remaining: spreadRemaining };
  }
  const shortSeenAtMs = finite(saved.shortSeenAtMs);
  if (shortSeenAtMs !== undefined) state.shortSeenAtMs = shortSeenAtMs;
  const ended = finite(saved.ended);
  if (ended !== undefined) state.ended = ended;
  if (saved.unlimited === true) state.unlimited = true;
  const clock = saved.serverClock as Record<string, unknown> | undefined;
  const offsetMs = finite(clock?.offsetMs);
  const atMs = finite(clock?.atMs);
  if (offsetMs !== undefined && atMs !== undefined) state.serverClock = { offsetMs, atMs };
  return state;
}

// A lock is held for one read and one write: a process that holds it longer than this is stuck.
const LOCK_WAIT_MS = 10_000;

/**
 * The state in `$PETS_CONFIG_DIR/state/ratelimit-<name>.json`, shared by every pets process
 * using the key. Changes happen under the key's file lock, and the file is replaced by
 * rename, so a reader never sees half a state.
 */
export function fileStore(configDir: string, name: string): StateStore {
  const dir = join(configDir, 'state');
  const path = join(dir, `ratelimit-${name}.json`);
  let text = '';

  function load(): GateState {
    try {
      text = readFileSync(path, 'utf8');
      return revive(JSON.parse(text));
    } catch {
      text = '';
      return EMPTY_STATE;
    }
  }

  let lock: FileLock | undefined;
  /** Takes the key's lock (core/file-lock.ts: a dead holder is broken, the wait bounded). */
  function acquire(): () => void {
    if (!lock) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      lock = fileLock(path);
    }
    return lock.takeSync(LOCK_WAIT_MS);
  }

  const serialize = (state: GateState) => `${JSON.stringify({ version: 2, ...state })}\n`;

  return {
    update(change) {
      // Optimistic first: a change that leaves the state as it is (a send with no limit to
      // count, a wait) needs no lock, since the file is only ever replaced whole.
      const seen = load();
      const seenText = text;
      const quick = change(seen);
      if (serialize(quick.state) === (seenText || serialize(EMPTY_STATE))) return quick.result;
      const release = acquire();
      try {
        const { state, result } = change(load());
        const next = serialize(state);
        if (next !== text) {
          const temp = `${path}.${process.pid}.tmp`;
          writeFileSync(temp, next, { mode: 0o600 });
          renameSync(temp, path);
          text = next;
        }
        return result;
      } finally {
        release();
      }
    },
    read: load,
    folder: dir,
    check() {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const temp = `${path}.${process.pid}.check`;
      try {
        writeFileSync(temp, ' '.repeat(CHECK_BYTES), { mode: 0o600 });
      } finally {
        rmSync(temp, { force: true });
      }
    },
  };
}
