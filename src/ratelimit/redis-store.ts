import type { Redis } from 'ioredis';
import { NetworkError } from '../core/errors.js';
import type { RateStoreAddress } from '../config/rate-store.js';
import { randomUUID } from 'node:crypto';
import { stateDecoder, type StateStore } from './state-store.js';
import { EMPTY_STATE, type GateState } from './policy.js';

// The key's state in a Redis that machines share. Redis only holds the state and orders the
// changes: each change is the policy's own pure function (policy.ts), run here on the state
// last seen, and written by a compare-and-set script only if no other process wrote since;
// otherwise the script returns the newer state, and the change runs again on it.
//
// The stored state carries a generation: a random id made by the process that creates the key
// from nothing. A state wiped and then created afresh by a process that never saw the old one
// (a machine starting just after a FLUSHALL) is then told apart from a newer state: its
// generation differs from the one the running processes knew.

/**
 * Sets the key to ARGV[2] if it still holds ARGV[1] ('' for none), and answers nil; else
 * answers what it holds and its time to live (PTTL). The state lives two days past its last
 * change: longer than a daily quota's window, and a store shared by many keys does not keep
 * those no one uses.
 */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return {current, redis.call('PTTL', KEYS[1])} end
if ARGV[2] ~= ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return false
`;
const KEEP_MS = 2 * 24 * 3600_000;

/** A store that does not answer in this long is taken as lost (exit 6). */
export const STORE_TIMEOUT_MS = 2_000;

/** Changes that lost to another process this many times in a row mean a store in trouble. */
const MAX_CONFLICTS = 100;

/**
 * How far this machine's clock may run ahead of the store's over a state's life (two days):
 * a key gone this close to when it could have expired is taken as expired.
 */
const DRIFT_MS = 60_000;

type CasClient = Redis & {
  compareAndSet(
    key: string,
    seen: string,
    next: string,
    keepMs: number,
  ): Promise<[string, number] | null>;
};

export interface RedisStoreOptions {
  /** What the store's state path reads time from: a monotonic clock (tests inject one). */
  now?: () => number;
  /** Told once of a state set aside as impossible (state-store.ts). */
  warn?: (line: string) => void;
}

/** Where the state of the key named `name` (state-store.ts's stateName) lives in Redis. */
export function redisKey(name: string): string {
  return `pets:ratelimit:${name}`;
}

/**
 * Connects to the store and reads the key's state, or throws (exit 6) before anything is
 * sent: a store that cannot be reached, or refuses the password. `redact` takes secrets out
 * of what the store's client says.
 */
export async function openRedisStore(
  address: RateStoreAddress,
  name: string,
  redact: (text: string) => string,
  options: RedisStoreOptions = {},
): Promise<StateStore> {
  const connection = await connect(address, redact);
  const key = redisKey(name);
  const now = options.now ?? (() => performance.now());
  const decode = stateDecoder(`${key} in ${address.shown}`, options.warn);
  const store = new RedisStore(connection, key, address.shown, now, decode);
  try {
    await connection.client.connect();
    // A SELECT that failed (a database the server does not have) is only an 'error' event to
    // ioredis, which goes on in database 0: the store would not be the one configured.
    connection.checkSetUp();
    await store.readAtOpen();
  } catch (error) {
    connection.client.disconnect();
    throw cannotOpen(address, connection.failure(error));
  }
  return store;
}

/** When a state seen at `asked` with `ttl` ms to live (PTTL: -1 none, -2 gone) can expire at the earliest. */
function keptUntil(asked: number, ttl: number): number {
  if (ttl === -1) return Infinity;
  return ttl < 0 ? -Infinity : asked + ttl;
}

/**
 * The store no longer holds a state this process read or wrote, before that state could have
 * expired: deleted, flushed, or evicted. The machines' shared count is gone with it, so going
 * on from an empty state would send into a window the others already used (exit 6, gate.ts).
 */
export class StateForgotten extends Error {
  readonly hint =
    'Keep the store from evicting keys (maxmemory-policy noeviction) and from FLUSHALL/FLUSHDB, then run the same command: a batch resumes where it stopped.';

  constructor() {
    super(
      "the store no longer holds this key's state: deleted, flushed, or evicted by a maxmemory policy",
    );
  }
}

type Connection = Awaited<ReturnType<typeof connect>>;

/** The store's client, and `failure`: what a command met, in one line, redacted. */
async function connect(address: RateStoreAddress, redact: (text: string) => string) {
  const { Redis } = await import('./ioredis.js');
  const client = new Redis(address.url, {
    lazyConnect: true,
    // A lost store stops the command (gate.ts): no queue, no reconnecting behind its back.
    disconnectTimeout: 0, // else ioredis holds the exit 2 s after a socket already closed
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: STORE_TIMEOUT_MS,
    commandTimeout: STORE_TIMEOUT_MS,
    // Its ready check (INFO) waits for a store loading its data, which the first GET reports
    // anyway (exit 6), and warns on the console when the user may not run INFO.
    enableReadyCheck: false,
  }) as CasClient;
  // What the connection met: ioredis reports it here, and rejects with "Connection is closed".
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
  });
  client.defineCommand('compareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET });
  const failure = (error: unknown) => {
    const cause = lastError ?? (error as Error);
    lastError = undefined;
    const said = withoutPassword(cause.message.split('\n')[0] ?? '', address.password);
    // ioredis's words for a connection that has ended, whatever ended it.
    const closed = /^(Stream isn't writeable|Connection is closed)/.test(said);
    return redact(closed ? 'the connection was closed' : said);
  };
  const checkSetUp = () => {
    if (lastError) throw lastError;
  };
  return { client, failure, checkSetUp };
}

/**
 * What the store said, with every occurrence of its password taken out however short: a store
 * echoes what it was sent ("ERR unknown command 'auth', with args beginning with: '<password>'",
 * its line breaks as spaces), and `redact` looks for a secret under 8 characters only in URLs,
 * since elsewhere such text occurs by chance. Here it cannot: this is the store's own reply.
 * Every error of the store reaches pets's messages through `failure`, and so through here.
 */
function withoutPassword(said: string, password: string | undefined): string {
  if (!password) return said;
  const echoes = new Set([password, password.replace(/[\r\n]/g, ' ')]);
  return [...echoes].reduce((text, echo) => text.split(echo).join('***'), said);
}

/** The store could not be opened: it refused pets, or could not be reached. */
function cannotOpen(address: RateStoreAddress, reason: string): NetworkError {
  if (/^ERR DB index is out of range/.test(reason)) {
    return new NetworkError(
      'rate_store_refused',
      `the rate store ${address.shown} has no database ${address.database}; nothing was sent`,
      {
        requestMayHaveArrived: false,
        hint: `Name a database it has (its "databases" setting, 16 by default) in ${storeSetting(address)}.`,
      },
    );
  }
  // A store that knows no AUTH (renamed away) was reached, and refused the password.
  const refused = /^(WRONGPASS|NOAUTH|NOPERM|ERR unknown command 'auth')/i.test(reason);
  return new NetworkError(
    refused ? 'rate_store_refused' : 'rate_store_unreachable',
    refused
      ? `the rate store ${address.shown} refused pets (${reason}); nothing was sent`
      : `cannot reach the rate store ${address.shown} (${reason}); nothing was sent`,
    {
      requestMayHaveArrived: false,
      hint: refused
        ? `Check the user and password in ${storeSetting(address)}.`
        : `Start the store or fix ${storeSetting(address)}: pets does not send without it, since other machines on this key count on it.`,
    },
  );
}

interface Pending {
  step: (state: GateState) => { state: GateState; result: unknown };
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The state as the store last sent it, and the changes waiting to be written. The changes
 * asked for while one is out go together in the next write, in the order they came: each is
 * pure, so running them one after another on a state is what running them as separate steps
 * would do, at one round trip for all (as the journal shares one sync).
 */
class RedisStore implements StateStore {
  private state = EMPTY_STATE;
  private pending: Pending[] = [];
  private running: Promise<void> | undefined;

  /** The state as the store holds it, encoded: what a write expects to replace. */
  private text = '';
  /** The generation of the state this process knows; '' for none yet (it adopts the first it finds). */
  private generation = '';
  /** Before this moment (on `now`) the state this process knows cannot have expired. */
  private keptUntil = -Infinity;

  constructor(
    private readonly connection: Connection,
    readonly place: string,
    readonly shared: string,
    private readonly now: () => number,
    private readonly decodeState: (text: string) => GateState,
  ) {}

  /** Reads the key's state and its time to live: a swap that expects what no store holds. */
  async readAtOpen(): Promise<void> {
    const asked = this.now();
    this.learn((await this.swap('', 'unread'))!, asked);
  }

  update<T>(step: (state: GateState) => { state: GateState; result: T }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ step, resolve: resolve as (result: unknown) => void, reject });
      this.running ??= this.run();
    });
  }

  read(): GateState {
    return this.state;
  }

  async close(): Promise<void> {
    await this.running;
    this.connection.client.disconnect();
  }

  private async run(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.write(batch);
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    this.running = undefined;
  }

  /** Writes `batch`'s changes, run again on the newer state each time another process wrote. */
  private async write(batch: Pending[]): Promise<void> {
    for (let conflicts = 0; ; conflicts++) {
      const { next, outcomes } = runSteps(this.state, batch);
      // A process creating the key from nothing starts a generation; it is this process's
      // only once written, since another may create the key first (then this one adopts it).
      const generation = this.text === '' ? randomUUID() : this.generation;
      const written = encodeStored(generation, next);
      // Changes that leave the state the store just sent as it is (waits) are done: that
      // state is as fresh as a read.
      const asked = this.now();
      const newer = conflicts === 0 || written !== this.text ? await this.swap(written) : null;
      if (newer === null) {
        if (written !== this.text) this.keptUntil = asked + KEEP_MS;
        this.text = written;
        this.generation = generation;
        this.state = next;
        batch.forEach(({ resolve, reject }, i) => {
          const { ok, value } = outcomes[i]!;
          if (ok) resolve(value);
          else reject(value);
        });
        return;
      }
      this.learn(newer, asked);
      if (conflicts >= MAX_CONFLICTS) {
        throw new Error(`${MAX_CONFLICTS} writes in a row met a newer state`);
      }
    }
  }

  /**
   * Takes the state the store answered with, asked at `asked`. A state this process knew that
   * is gone before it could have expired was forgotten by the store: that stops the batch,
   * rather than going on from an empty state. A first open finding none is normal, as is a
   * state gone past its life (no one changed it for two days). A state of another generation
   * is one created afresh after the one this process knew was lost, by a process that never
   * saw it: it holds none of this process's claims, so it stops the batch the same way.
   */
  private learn([text, ttl]: [string, number], asked: number): void {
    const generation = generationOf(text);
    const lost =
      text === '' ? this.text !== '' : this.generation !== '' && generation !== this.generation;
    if (lost && this.now() < this.keptUntil - DRIFT_MS) throw new StateForgotten();
    this.text = text;
    this.generation = generation;
    this.state = this.decodeState(text);
    this.keptUntil = text === '' ? -Infinity : Math.max(this.keptUntil, keptUntil(asked, ttl));
  }

  /** Writes `written` if the store still holds what this process saw; else the newer state and its PTTL. */
  private async swap(written: string, seen = this.text): Promise<[string, number] | null> {
    const { client, failure } = this.connection;
    try {
      return await client.compareAndSet(this.place, seen, written, KEEP_MS);
    } catch (error) {
      throw new Error(failure(error), { cause: error });
    }
  }
}

/** The state as the store holds it: encodeState's line, with its generation first (decodeState drops it). */
function encodeStored(generation: string, state: GateState): string {
  return `${JSON.stringify({ generation, ...state })}\n`;
}

/** The generation a stored state carries; '' for none (no state, or one without). */
function generationOf(text: string): string {
  try {
    const { generation } = JSON.parse(text) as { generation?: unknown };
    return typeof generation === 'string' ? generation : '';
  } catch {
    return '';
  }
}

/** Runs each change in turn on `state`; one that throws changes nothing, and is its outcome. */
function runSteps(state: GateState, batch: Pending[]) {
  let next = state;
  const outcomes = batch.map(({ step }) => {
    try {
      const changed = step(next);
      next = changed.state;
      return { ok: true, value: changed.result };
    } catch (error) {
      return { ok: false, value: error };
    }
  });
  return { next, outcomes };
}

function storeSetting(address: RateStoreAddress): string {
  return address.source === 'environment' ? 'PETS_RATE_STORE' : 'the profile (--rate-store)';
}
