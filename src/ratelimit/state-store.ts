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

// A time as pets writes one: a moment seen before 2100 (a floor of 1e300, say, would end
// every wait on the key, and Date cannot even show it), a deadline before 2300 (a Retry-After
// is kept for up to a century, rate-headers.ts).
const before = (latestMs: number) => (value: unknown) =>
  typeof value === 'number' && value >= 0 && value < latestMs ? value : undefined;
const seen = before(Date.UTC(2100, 0, 1));
const until = before(Date.UTC(2300, 0, 1));

/**
 * Reads back what `encodeState` wrote, found at `place`: no text is no state. So is a state
 * holding a value pets never writes (not JSON, a field of another type, a time past those,
 * a negative count), since acting on it could send into a block or fail every command: it
 * is set aside whole, and `warn` hears of it once.
 */
export function stateDecoder(place: string, warn?: (line: string) => void) {
  let warned = false;
  return (text: string): GateState => {
    if (text === '') return EMPTY_STATE;
    const state = revive(text);
    if (typeof state !== 'string') return state;
    if (!warned)
      warn?.(
        `the rate-limit state ${place} was set aside (${state}, a value pets never writes); pets learns the key's limits from the server again`,
      );
    warned = true;
    return EMPTY_STATE;
  };
}

/** The state in `text`, or what is wrong with it: every field pets knows, checked. */
function revive(text: string): GateState | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (typeof raw !== 'object' || raw === null) return 'not an object';
  const state: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(FIELDS)) {
    const given = (raw as Record<string, unknown>)[name];
    if (given === undefined) continue;
    const value = read(given);
    if (value === undefined) return `${name} ${JSON.stringify(given).slice(0, 60)}`;
    state[name] = value;
  }
  return state as GateState;
}

/**
 * How each field of the state is read back, in this order (a shared store compares the
 * text): undefined for a value pets never writes. Every field is named, so that one added to
 * GateState cannot be lost silently on its way through a store.
 */
const FIELDS: { [K in keyof GateState]-?: (value: unknown) => GateState[K] | undefined } = {
  refusals: (value) => {
    const read = numbers(value, { count, sinceMs: seen, lastWaitMs: until, ended: count });
    if (!read) return undefined;
    const { ended, ...rest } = read;
    return { ...rest, status: (value as { status?: unknown }).status === 503 ? 503 : 429, ended };
  },
  limitSeenAtMs: seen,
  cooldownUntilMs: until,
  cooldownCode: (value) => (typeof value === 'string' ? value : undefined),
  quota: (value) => numbers(value, { limit: count, remaining: count, resetAtMs: until }),
  probe: (value) => {
    const id = (value as { id?: unknown } | null)?.id;
    const read = numbers(value, { untilMs: until });
    return typeof id === 'string' && read ? { id, ...read, ...flag(value, 'unplaced') } : undefined;
  },
  inFlight: (value) =>
    entriesOf(value, (claim) => {
      const read = numbers(claim, { untilMs: until, ended: count });
      const gapMs = count((claim as { gapMs?: unknown }).gapMs);
      return read && { ...read, ...flag(claim, 'unplaced'), ...(gapMs !== undefined && { gapMs }) };
    }),
  demand: (value) =>
    entriesOf(value, (said) => {
      const read = numbers(said, { count, untilMs: until });
      return read && { ...read, ...flag(said, 'short') };
    }),
  spread: (value) => numbers(value, { resetAtMs: until, fromMs: seen, remaining: count }),
  crowdedUntilMs: until,
  shortSeenAtMs: seen,
  ended: count,
  unlimited: (value) => (value === true ? true : undefined),
  seenServerMs: seen,
  seenAtLocalMs: seen,
  seenOnMonotonic: (value) => {
    const clock = (value as { clock?: unknown } | null)?.clock;
    const read = numbers(value, { ms: seen });
    return typeof clock === 'string' && read ? { clock, ...read } : undefined;
  },
  leases: (value) => entriesOf(value, count),
  pace: (value) => {
    const read = numbers(value, {
      gapMs: count,
      refusedGapMs: count,
      sinceMs: seen,
      accepted: count,
    });
    const lastSentMs = seen((value as { lastSentMs?: unknown } | null)?.lastSentMs);
    const acceptedGapMs = count((value as { acceptedGapMs?: unknown } | null)?.acceptedGapMs);
    return (
      read && {
        ...read,
        ...(lastSentMs !== undefined && { lastSentMs }),
        ...(acceptedGapMs !== undefined && { acceptedGapMs }),
      }
    );
  },
};

function count(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/** The fields of `value` that `read` names, when each reads well; else undefined. */
function numbers<K extends string>(
  value: unknown,
  read: Record<K, (value: unknown) => number | undefined>,
): Record<K, number> | undefined {
  const numbers = {} as Record<K, number>;
  for (const name of Object.keys(read) as K[]) {
    const number = read[name]((value as Record<string, unknown> | null)?.[name]);
    if (number === undefined) return undefined;
    numbers[name] = number;
  }
  return numbers;
}

/** `{ [name]: true }` when `value` has it set, else nothing: a flag is stored only when set. */
function flag<K extends string>(value: unknown, name: K): Partial<Record<K, true>> {
  return (value as Record<string, unknown> | null)?.[name] === true
    ? ({ [name]: true } as Record<K, true>)
    : {};
}

/** The entries of a record, when every one reads well; else undefined. */
function entriesOf<T>(
  value: unknown,
  read: (entry: unknown) => T | undefined,
): Record<string, T> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const kept: Array<[string, T]> = [];
  for (const [key, entry] of Object.entries(value)) {
    const readEntry = read(entry);
    if (readEntry === undefined) return undefined;
    kept.push([key, readEntry]);
  }
  // fromEntries, as a literal would, makes every key its own (even __proto__).
  return Object.fromEntries(kept);
}

// A lock is held for one read and one write: a process that holds it longer than this is stuck.
const LOCK_WAIT_MS = 10_000;

/**
 * The state in `$PETS_CONFIG_DIR/state/ratelimit-<name>.json`, shared by every pets process
 * using the key. Changes happen under the key's file lock, and the file is replaced by
 * rename, so a reader never sees half a state.
 */
export function fileStore(
  configDir: string,
  name: string,
  warn?: (line: string) => void,
): StateStore {
  const dir = join(configDir, 'state');
  const path = join(dir, `ratelimit-${name}.json`);
  const decodeState = stateDecoder(path, warn);
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
