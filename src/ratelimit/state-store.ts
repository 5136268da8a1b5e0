import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hash } from 'node:crypto';
import { join } from 'node:path';
import { createFolder } from '../config/owned-files.js';
import { EMPTY_STATE, type GateState } from './policy.js';
import { fileLock, type FileLock } from '../core/file-lock.js';

/**
 * Where the gate keeps a key's state: files on this machine (fileStore), or a store shared by
 * machines (redis-store.ts). Both hold the same state, written by `encodeState`.
 */
export interface StateStore {
  /**
   * Reads, changes and writes the state as one step for every pets process using the key (on
   * every machine, for a shared store), so none overwrites what another learnt. `change` is
   * pure: a store may call it again on a newer state.
   */
  update<T>(change: (state: GateState) => { state: GateState; result: T }): Promise<T>;
  /** The state as last seen: for the file store the file now, for a shared store its last answer. */
  read(): GateState;
  /** Throws what writing the state would meet (a full disk, a folder pets may not write). */
  check?(): Promise<void>;
  /** The folder the state lives in, to name in messages. */
  readonly folder?: string;
  /**
   * The store shared by machines, as its URL without a password: losing it stops a command,
   * since nothing else keeps the machines to one budget.
   */
  readonly shared?: string;
  /** Ends what the store holds open (a connection). */
  close?(): Promise<void>;
  /** Where the key's state is in the store: a file's path, or a Redis key. */
  readonly place?: string;
}

// What a check writes: more than a state of many processes takes, so that a disk with room
// for the check has room for the state.
const CHECK_BYTES = 4096;

/** The state of one process alone: for tests, and when no config folder is known. */
export function memoryStore(initial: GateState = EMPTY_STATE): StateStore {
  let state = initial;
  return {
    async update(change) {
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

/**
 * The state as stored, in a file or a shared store: one line of JSON. Version 3: every moment
 * is on the server's clock (policy.ts), no longer the writer's.
 */
export function encodeState(state: GateState): string {
  return `${JSON.stringify({ version: 3, ...state })}\n`;
}

/** Reads back what `encodeState` wrote; what is missing, corrupt or unknown is an empty state. */
export function decodeState(text: string): GateState {
  try {
    return revive(JSON.parse(text));
  } catch {
    return EMPTY_STATE;
  }
}

const unplaced = (claim: Record<string, unknown> | null | undefined) =>
  claim?.unplaced === true ? { unplaced: true as const } : {};

/** Reads back only what is well formed; a missing or corrupt file is an empty state. */
function revive(raw: unknown): GateState {
  if (typeof raw !== 'object' || raw === null) return EMPTY_STATE;
  const saved = raw as Record<string, unknown>;
  const state: GateState = {};
  const refusals = saved.refusals as Record<string, unknown> | undefined;
  const count = finite(refusals?.count);
  const sinceMs = finite(refusals?.sinceMs);
  const lastWaitMs = finite(refusals?.lastWaitMs);
  const refusalsEnded = finite(refusals?.ended);
  const status = refusals?.status === 503 ? 503 : 429;
  if (
    count !== undefined &&
    sinceMs !== undefined &&
    lastWaitMs !== undefined &&
    refusalsEnded !== undefined
  ) {
    state.refusals = { count, sinceMs, lastWaitMs, status, ended: refusalsEnded };
  }
  const limitSeenAtMs = finite(saved.limitSeenAtMs);
  if (limitSeenAtMs !== undefined) state.limitSeenAtMs = limitSeenAtMs;
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
    state.probe = { id: probe.id, untilMs: probeUntil, ...unplaced(probe) };
  }
  if (typeof saved.inFlight === 'object' && saved.inFlight !== null) {
    state.inFlight = {};
    for (const [id, claim] of Object.entries(saved.inFlight as Record<string, unknown>)) {
      const fields = claim as Record<string, unknown> | null;
      const untilMs = finite(fields?.untilMs);
      const ended = finite(fields?.ended);
      if (untilMs !== undefined && ended !== undefined) {
        state.inFlight[id] = { untilMs, ended, ...unplaced(fields) };
      }
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
  const crowdedUntilMs = finite(saved.crowdedUntilMs);
  if (crowdedUntilMs !== undefined) state.crowdedUntilMs = crowdedUntilMs;
  const shortSeenAtMs = finite(saved.shortSeenAtMs);
  if (shortSeenAtMs !== undefined) state.shortSeenAtMs = shortSeenAtMs;
  const ended = finite(saved.ended);
  if (ended !== undefined) state.ended = ended;
  if (saved.unlimited === true) state.unlimited = true;
  const seenServerMs = finite(saved.seenServerMs);
  if (seenServerMs !== undefined) state.seenServerMs = seenServerMs;
  const seenAtLocalMs = finite(saved.seenAtLocalMs);
  if (seenAtLocalMs !== undefined) state.seenAtLocalMs = seenAtLocalMs;
  if (typeof saved.leases === 'object' && saved.leases !== null) {
    for (const [owner, count] of Object.entries(saved.leases as Record<string, unknown>)) {
      const renewals = finite(count);
      if (renewals !== undefined) state.leases = { ...state.leases, [owner]: renewals };
    }
  }
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
    } catch {
      text = '';
      return EMPTY_STATE;
    }
    return decodeState(text);
  }

  let lock: FileLock | undefined;
  /** Takes the key's lock (core/file-lock.ts: a dead holder is broken, the wait bounded). */
  function acquire(): () => void {
    if (!lock) {
      createFolder(dir);
      lock = fileLock(path);
    }
    return lock.takeSync(LOCK_WAIT_MS);
  }

  return {
    async update(change) {
      // Optimistic first: a change that leaves the state as it is (a send with no limit to
      // count, a wait) needs no lock, since the file is only ever replaced whole.
      const seen = load();
      const seenText = text;
      const quick = change(seen);
      if (encodeState(quick.state) === (seenText || encodeState(EMPTY_STATE))) return quick.result;
      const release = acquire();
      try {
        const { state, result } = change(load());
        const next = encodeState(state);
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
    place: path,
    async check() {
      createFolder(dir);
      const temp = `${path}.${process.pid}.check`;
      try {
        writeFileSync(temp, ' '.repeat(CHECK_BYTES), { mode: 0o600 });
      } finally {
        rmSync(temp, { force: true });
      }
    },
  };
}
