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

/** Reads a value back as pets writes it, or undefined for one pets never writes. */
type Read<T> = (value: unknown) => T | undefined;

// A time as pets writes one: a moment seen before 2100 (a floor of 1e300, say, would end
// every wait on the key, and Date cannot even show it), a deadline before 2300 (a Retry-After
// is kept for up to a century, rate-headers.ts).
const before = (latestMs: number) => (value: unknown) =>
  typeof value === 'number' && value >= 0 && value < latestMs ? value : undefined;
const seen = before(Date.UTC(2100, 0, 1));
const until = before(Date.UTC(2300, 0, 1));
const count: Read<number> = (value) =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
const text: Read<string> = (value) => (typeof value === 'string' ? value : undefined);
// A flag is stored only when set.
const set: Read<true> = (value) => (value === true ? true : undefined);

/**
 * An object with every field of `required`, and those of `optional` it has, each read well;
 * only those fields are kept.
 */
function shape<R, O = object>(
  required: { [K in keyof R]: Read<R[K]> },
  optional = {} as { [K in keyof O]: Read<O[K]> },
): Read<R & Partial<O>> {
  return (value) => {
    if (typeof value !== 'object' || value === null) return undefined;
    const kept: Record<string, unknown> = {};
    const fields = [...Object.entries(required), ...Object.entries(optional)];
    for (const [name, read] of fields as Array<[string, Read<unknown>]>) {
      const given = (value as Record<string, unknown>)[name];
      if (given === undefined && !(name in required)) continue;
      const field = read(given);
      if (field === undefined) return undefined;
      kept[name] = field;
    }
    return kept as R & Partial<O>;
  };
}

/** A record whose every entry reads well. */
function entriesOf<T>(read: Read<T>): Read<Record<string, T>> {
  return (value) => {
    if (typeof value !== 'object' || value === null) return undefined;
    const entries = Object.entries(value).map(([key, entry]) => [key, read(entry)] as const);
    if (entries.some(([, entry]) => entry === undefined)) return undefined;
    // fromEntries, as a literal would, makes every key its own (even __proto__).
    return Object.fromEntries(entries) as Record<string, T>;
  };
}

/**
 * How each field of the state is read back, in this order (a shared store compares the
 * text). Every field is named, so that one added to GateState cannot be lost silently on its
 * way through a store.
 */
const FIELDS: { [K in keyof GateState]-?: Read<GateState[K]> } = {
  refusals: shape({
    count,
    sinceMs: seen,
    lastWaitMs: until,
    status: (value): 429 | 503 => (value === 503 ? 503 : 429),
    ended: count,
  }),
  limitSeenAtMs: seen,
  cooldownUntilMs: until,
  cooldownCode: text,
  quota: shape({ limit: count, remaining: count, resetAtMs: until }),
  probe: shape({ id: text, untilMs: until }, { unplaced: set }),
  inFlight: entriesOf(shape({ untilMs: until, ended: count }, { unplaced: set, gapMs: count })),
  demand: entriesOf(shape({ count, untilMs: until }, { short: set })),
  spread: shape({ resetAtMs: until, fromMs: seen, remaining: count }),
  crowdedUntilMs: until,
  shortSeenAtMs: seen,
  ended: count,
  unlimited: set,
  seenServerMs: seen,
  seenAtLocalMs: seen,
  seenOnMonotonic: shape({ clock: text, ms: seen }),
  leases: entriesOf(count),
  pace: shape(
    { gapMs: count, refusedGapMs: count, sinceMs: seen, accepted: count },
    { lastSentMs: seen, acceptedGapMs: count },
  ),
};

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
  for (const [name, read] of Object.entries(FIELDS) as Array<[string, Read<unknown>]>) {
    const given = (raw as Record<string, unknown>)[name];
    if (given === undefined) continue;
    const value = read(given);
    if (value === undefined) return `${name} ${JSON.stringify(given).slice(0, 60)}`;
    state[name] = value;
  }
  return state as GateState;
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
