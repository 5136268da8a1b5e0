import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hash } from 'node:crypto';
import { join } from 'node:path';
import { createFolder } from '../config/owned-files.js';
import { EMPTY_STATE, type GateState } from './policy.js';
import { fileLock, type FileLock } from '../core/file-lock.js';

/**
 * Where the gate keeps a key's state: files on this machine (fileStore), or a store shared by
 * machines (redis-store.ts). Both hold the same state, written by `encodeState` (the shared
 * store adds the generation it belongs to).
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

/**
 * The state as stored, in a file or a shared store: one line of JSON, every moment on the
 * server's clock (policy.ts).
 */
export function encodeState(state: GateState): string {
  return `${JSON.stringify(state)}\n`;
}

/** Reads back what `encodeState` wrote; what is missing, corrupt or unknown is an empty state. */
export function decodeState(text: string): GateState {
  try {
    return revive(JSON.parse(text));
  } catch {
    return EMPTY_STATE;
  }
}

/** Reads back only what is well formed; a missing or corrupt file is an empty state. */
function revive(raw: unknown): GateState {
  if (typeof raw !== 'object' || raw === null) return EMPTY_STATE;
  const state: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(FIELDS)) {
    const value = read((raw as Record<string, unknown>)[name]);
    if (value !== undefined) state[name] = value;
  }
  return state as GateState;
}

/**
 * How each field of the state is read back, in this order (a shared store compares the
 * text): undefined drops a field that is missing or malformed. Every field is named, so that
 * one added to GateState cannot be lost silently on its way through a store.
 */
const FIELDS: { [K in keyof GateState]-?: (value: unknown) => GateState[K] | undefined } = {
  refusals: (value) => {
    const read = numbers(value, 'count', 'sinceMs', 'lastWaitMs', 'ended');
    if (!read) return undefined;
    const { ended, ...rest } = read;
    return { ...rest, status: (value as { status?: unknown }).status === 503 ? 503 : 429, ended };
  },
  limitSeenAtMs: finite,
  cooldownUntilMs: finite,
  cooldownCode: (value) => (typeof value === 'string' ? value : undefined),
  quota: (value) => numbers(value, 'limit', 'remaining', 'resetAtMs'),
  probe: (value) => {
    const id = (value as { id?: unknown } | null)?.id;
    const read = numbers(value, 'untilMs');
    return typeof id === 'string' && read ? { id, ...read, ...flag(value, 'unplaced') } : undefined;
  },
  // Kept when saved as an object, even with no claim left in it.
  inFlight: (value) =>
    entriesOf(value, (claim) => {
      const read = numbers(claim, 'untilMs', 'ended');
      return read && { ...read, ...flag(claim, 'unplaced') };
    }) ?? (typeof value === 'object' && value !== null ? {} : undefined),
  demand: (value) =>
    entriesOf(value, (said) => {
      const read = numbers(said, 'count', 'untilMs');
      return read && { ...read, ...flag(said, 'short') };
    }),
  spread: (value) => numbers(value, 'resetAtMs', 'fromMs', 'remaining'),
  crowdedUntilMs: finite,
  shortSeenAtMs: finite,
  ended: finite,
  unlimited: (value) => (value === true ? true : undefined),
  seenServerMs: finite,
  seenAtLocalMs: finite,
  leases: (value) => entriesOf(value, finite),
};

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The fields `names` of `value`, when each is a finite number; else undefined. */
function numbers<K extends string>(value: unknown, ...names: K[]): Record<K, number> | undefined {
  const read = {} as Record<K, number>;
  for (const name of names) {
    const number = finite((value as Record<string, unknown> | null)?.[name]);
    if (number === undefined) return undefined;
    read[name] = number;
  }
  return read;
}

/** `{ [name]: true }` when `value` has it set, else nothing: a flag is stored only when set. */
function flag<K extends string>(value: unknown, name: K): Partial<Record<K, true>> {
  return (value as Record<string, unknown> | null)?.[name] === true
    ? ({ [name]: true } as Record<K, true>)
    : {};
}

/** The entries of a record that read well formed, or undefined when none does. */
function entriesOf<T>(
  value: unknown,
  read: (entry: unknown) => T | undefined,
): Record<string, T> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const kept: Array<[string, T]> = [];
  for (const [key, entry] of Object.entries(value)) {
    const readEntry = read(entry);
    if (readEntry !== undefined) kept.push([key, readEntry]);
  }
  // fromEntries, as a literal would, makes every key its own (even __proto__).
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
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
  // The state last decoded, and its text. A request reads the file several times (the
  // optimistic look, again under the lock, a reserved claim's check) and mostly finds it
  // unchanged: decoding it once is enough, since no one changes a state in place (policy.ts
  // returns new ones; memoryStore shares one object the same way).
  let decoded = { text: '', state: EMPTY_STATE };

  function load(): GateState {
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      text = '';
      return EMPTY_STATE;
    }
    if (text !== decoded.text) decoded = { text, state: decodeState(text) };
    return decoded.state;
  }

  let lock: FileLock | undefined;
  return {
    async update(change) {
      // Optimistic first: a change that leaves the state as it is (a send with no limit to
      // count, a wait) needs no lock, since the file is only ever replaced whole.
      const seen = load();
      const seenText = text;
      const quick = change(seen);
      if (encodeState(quick.state) === (seenText || encodeState(EMPTY_STATE))) return quick.result;
      if (!lock) {
        createFolder(dir);
        lock = fileLock(path);
      }
      // The key's lock (core/file-lock.ts): a dead holder is broken, the wait bounded.
      const release = lock.takeSync(LOCK_WAIT_MS);
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
