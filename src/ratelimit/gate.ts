import { followAbort } from '../core/abort.js';
import { clockTime, formatDuration, type Clock } from '../core/clock.js';
import {
  InterruptedError,
  NetworkError,
  PetsError,
  RateLimitError,
  ServerUnavailableError,
  SharedStateError,
} from '../core/errors.js';
import type { HttpRequest, HttpResponse, HttpSender } from '../http/types.js';
import {
  ampleBudget,
  decideSends,
  MAX_RESERVED_AHEAD,
  EMPTY_STATE,
  observeAnswer,
  refusalsExhausted,
  refusedTooOften,
  releaseSend,
  returnUnsent,
  type GateState,
  type ProcessDemand,
  type WaitReason,
} from './policy.js';
import { forgetDemand } from './sharing.js';
import { readDate, readRateHeaders } from './rate-headers.js';
import { MAX_ATTEMPTS, networkAttempts, retryBackoffMs, retryDecision } from './retry-policy.js';
import { ServerClock } from './server-clock.js';
import { memoryStore, type StateStore } from './state-store.js';
import { refuseWait, type WaitLimits, type WaitRefusal } from './wait-limits.js';

export interface WaitNotice {
  /** Why, in words: "rate limited", "quota used up", … */
  reason: string;
  attempt: number;
  maxAttempts: number;
}

/** Sleeps `ms`, showing what it likes (a countdown); rejects at once when `signal` aborts. */
export type Waiter = (ms: number, notice: WaitNotice, signal?: AbortSignal) => Promise<void>;

export interface GateOptions {
  send: HttpSender;
  clock: Clock;
  random: () => number;
  /** The most one command may spend waiting on limits, in all, before it gives up (exit 5). */
  maxWaitMs: number;
  /** The longest one wait may be (a batch left unattended); default: no bound of its own. */
  eachWaitMs?: number;
  /** A ban stops the command rather than being waited out (a batch left unattended). */
  stopOnBan?: boolean;
  /** Says, once, that the state cannot be shared with other processes (one line). */
  warn?: (line: string) => void;
  /** The key's state, shared with the other pets processes that use it. */
  store?: StateStore;
  /** How long a request may be in flight before its claim on the budget lapses. */
  claimMs: number;
  /**
   * This process's name, and what it can see of another by its name (`<pid>.<namespace>`,
   * core/process-alive.ts). A claim of a process seen gone is void at once. One of a process
   * that cannot be seen (another PID namespace, another machine) that time does not lapse (an
   * unplaced claim) lapses as a lease: its owner renews it every CLAIM_RENEW_MS while it is in
   * flight, and a reader voids it once it has watched it unrenewed for CLAIM_LEASE_MS on its own
   * monotonic clock. Without it (tests of one process), no claim is voided.
   */
  processes?: ProcessView;
  wait?: Waiter;
  trace?: (line: string) => void;
  /** Takes the key out of server text before it is kept or shown. */
  redact?: (text: string) => string;
  /** Reads the code (`key_banned`, say) from a 429's body, whose format is the API's. */
  errorCode?: (body: string) => string | undefined;
}

export interface ProcessView {
  self: string;
  see(name: string): 'alive' | 'gone' | 'unseen';
  /** Runs `renew` every `everyMs` until the returned stop is called; default: an unref'd timer. */
  every?(everyMs: number, renew: () => void): () => void;
}

/** How often a process renews the lease of its unplaced claims in flight. */
export const CLAIM_RENEW_MS = 1_000;
/**
 * How long a reader watches a lease unrenewed before it takes the claims as ended: the margin
 * covers an event loop held up for long (a journal's replay), as the file lock's does.
 */
export const CLAIM_LEASE_MS = 10_000;

/** The owner of claim `id` (a gate's claim prefix, `<pid>.<namespace>.<nonce>`). */
const ownerOf = (id: string) => id.slice(0, id.lastIndexOf('.'));
/** The process of a claim prefix: `<pid>.<namespace>`. */
const processOf = (owner: string) => owner.slice(0, owner.lastIndexOf('.'));

/** The owners of claims in flight that time does not lapse (unplaced: policy.ts). */
function unplacedOwners(state: GateState): Set<string> {
  const owners = new Set<string>();
  for (const [id, claim] of Object.entries(state.inFlight ?? {})) {
    if (claim.unplaced) owners.add(ownerOf(id));
  }
  if (state.probe?.unplaced) owners.add(ownerOf(state.probe.id));
  return owners;
}

/**
 * The state with the leases it needs: `owner`'s while it has unplaced claims in flight, and
 * none of an owner that has none (a lease ended, or its claims were voided).
 */
function keepLeases(state: GateState, owner: string, renew = false): GateState {
  const owners = unplacedOwners(state);
  const leases: Record<string, number> = {};
  for (const [name, count] of Object.entries(state.leases ?? {})) {
    if (owners.has(name)) leases[name] = count;
  }
  if (owners.has(owner)) leases[owner] = (leases[owner] ?? 0) + (renew ? 1 : 0);
  const same =
    Object.keys(leases).length === Object.keys(state.leases ?? {}).length &&
    Object.entries(leases).every(([name, count]) => state.leases?.[name] === count);
  if (same) return state;
  const next: GateState = { ...state, leases };
  if (Object.keys(leases).length === 0) delete next.leases;
  return next;
}

const realTimer = (everyMs: number, renew: () => void) => {
  const timer = setInterval(renew, everyMs).unref();
  return () => clearInterval(timer);
};

/** Why a wait ends early: this process learnt something (a constant, not an error). */
const WAKE = Symbol('wake');

/** How long a go may wait to be acted on (its request's beforeSend) before it is asked again. */
const STALE_GO_MS = 1_000;

/** How often a request waiting for another process's first answer looks again. */
export const LEARNING_POLL_MS = 25;

const WAIT_WORDS: Record<WaitReason, string> = {
  cooldown: 'rate limited',
  quota: 'quota used up',
  learning: 'learning the limit',
  sharing: 'sharing the window',
  crowded: 'one at a time: another client uses the key',
};

/** Said once a process finds another client on its key, with no store shared by machines. */
export const ANOTHER_CLIENT =
  'another client is using this key; to share its limits across machines, set PETS_RATE_STORE (pets help rate-limits)';

/**
 * Sits between the API client and the transport, shared by every request of the process on
 * one key. Each request asks the policy at the moment it would go, under the shared state's
 * lock, and waits as long as it says; answers feed the state. The waits of a whole command,
 * however many requests, are bounded by --max-wait.
 */
export class RateGate {
  private store: StateStore;
  private readonly wait: Waiter;
  private readonly claimPrefix: string;
  private claims = 0;
  /** The claims of the requests asking the gate now, in the order they began to ask. */
  private readonly asking = new Set<string>();
  /** Requests the caller has said will follow those asking. */
  private backlog = 0;
  /**
   * Requests this process has sent, or let go and about to send: what a message may say was
   * sent. Counted when the gate lets a request go, so that a stop decided by another request
   * in the same moment counts it; taken back if it never leaves.
   */
  private sent = 0;
  /** Requests of this process on the wire now: sent, not yet answered. */
  private onTheWire = 0;
  /**
   * Blocks this process has learnt (a cooldown, another client on the key): a request let go
   * before one and not yet sent asks again rather than leave into it.
   */
  private blocksLearnt = 0;
  /** 401s and 403s answered to this process: the key refused, which stops a batch. */
  private keyRefusals = 0;
  private waitedMs = 0;
  /** The stop that ended this process's sending: every request after it stops the same way. */
  private stoppedBy?: PetsError;
  /**
   * Whether the stop is a block (a 429's cooldown, a ban): then a request let go before it
   * and not yet sent stays, whereas a used-up quota's stop leaves those within the budget.
   */
  private stopIsBlock = false;
  /** The shared store was lost: nothing more is sent, since nothing else coordinates machines. */
  private storeLost?: NetworkError;
  /** A stop's and a lost store's messages, told again if one counted as sent never leaves. */
  private readonly sentTexts: Array<[PetsError, (sentWords: string) => string]> = [];
  private saidCrowded = false;
  private readonly limits: WaitLimits;
  private waitedUntilMs = Number.NEGATIVE_INFINITY;
  /** Aborted whenever this process learns something, to wake its waiting requests. */
  private changed = new AbortController();
  /** The shared state as this process last changed it: what it knows without reading. */
  private known: GateState = EMPTY_STATE;
  /** Claims taken ahead for this process's next requests, while the budget is ample. */
  private reserved: string[] = [];
  /** Claims asked ahead by changes under way, not yet in `reserved` (demandOf). */
  private readonly askedAhead = new Set<string>();
  /** The server's time as this process measures it: the shared state's moments are on it. */
  private readonly time: ServerClock;
  /** Stops renewing this process's lease: set while it has unplaced claims in flight. */
  private stopRenewing?: () => void;
  /** The leases of other processes this one watches: each count, and since when (steady). */
  private readonly watched = new Map<string, { count: number | undefined; sinceMs: number }>();

  constructor(private readonly options: GateOptions) {
    this.store = options.store ?? memoryStore();
    this.limits = {
      maxWaitMs: options.maxWaitMs,
      eachWaitMs: options.eachWaitMs ?? Number.POSITIVE_INFINITY,
      stopOnBan: options.stopOnBan ?? false,
    };
    this.wait = options.wait ?? ((ms, _notice, signal) => options.clock.sleep(ms, signal));
    this.time = new ServerClock(options.clock);
    const self = options.processes?.self ?? `${process.pid}.unknown`;
    this.claimPrefix = `${self}.${Math.floor(options.random() * 1e9).toString(36)}`;
  }

  /**
   * The key's state as all processes know it, for `pets quota`, with its cooldown and Reset
   * on this machine's clock, as people read them.
   */
  get snapshot(): GateState {
    const state = this.store.read();
    const serverNow = this.time.likelyNow(state);
    const local = (serverMs: number) => serverMs - serverNow + this.options.clock.now();
    const snapshot = { ...state };
    if (state.quota) snapshot.quota = { ...state.quota, resetAtMs: local(state.quota.resetAtMs) };
    if (state.cooldownUntilMs !== undefined) {
      snapshot.cooldownUntilMs = local(state.cooldownUntilMs);
    }
    return snapshot;
  }

  /**
   * Where the key's state is kept: a store shared by machines (its URL without a password),
   * or files on this machine; and where in it.
   */
  get storeView(): { shared?: string; place?: string } {
    return {
      ...(this.store.shared !== undefined && { shared: this.store.shared }),
      ...(this.store.place !== undefined && { place: this.store.place }),
    };
  }

  /**
   * The caller has `count` more requests to send after those already under way (a batch's
   * records not yet started): a process with many to send shares a window with short ones.
   * False once the server has said it states no limit: there is no window to share.
   */
  expect(count: number): boolean {
    this.backlog = Math.max(0, Math.floor(count));
    return this.known.unlimited !== true;
  }

  /**
   * Refuses (exit 1) a run that needs its state shared with other processes on the key (a
   * batch) when the state cannot be written.
   */
  async requireShared(): Promise<void> {
    try {
      await this.store.check?.();
    } catch (error) {
      throw new SharedStateError(this.store.folder ?? 'the config folder', error);
    }
  }

  /** Requests sent so far by this process. */
  get sentCount(): number {
    return this.sent;
  }

  readonly send: HttpSender = async (request) => {
    let networkFailures = 0;
    // What must precede the send (a journal's intent) runs once, when the request may go.
    let beforeSend = request.beforeSend;
    const announce = async () => {
      const run = beforeSend;
      beforeSend = undefined;
      await run?.();
    };
    for (let attempt = 1; ; attempt++) {
      const id = await this.reserve(request, attempt);
      let response: HttpResponse;
      let sentAt = 0;
      let onTheWire = false;
      try {
        if (request.stopSending?.aborted) {
          this.unsend();
          throw new InterruptedError();
        }
        if (beforeSend && !(await this.letGo(request, id, announce))) {
          attempt--;
          continue;
        }
        sentAt = this.time.steadyNow();
        this.onTheWire++;
        onTheWire = true;
        response = await this.options.send(request);
        this.onTheWire--;
        onTheWire = false;
        // Counted at once, before anything else runs: one let go now does not leave (awaitStop).
        if (response.status === 401 || response.status === 403) this.keyRefusals++;
        request.left?.();
      } catch (error) {
        if (onTheWire) this.onTheWire--;
        networkFailures = await this.afterFailure(error, request, id, onTheWire, {
          attempt,
          networkFailures,
        });
        continue;
      }
      if ((await this.afterAnswer(request, id, response, sentAt, attempt)) === 'final') {
        return response;
      }
    }
  };

  /**
   * Lets go a request that must do something first (a journal's intent, synced): done now,
   * not before the wait, so that a request waiting out a limit has done nothing. False if its
   * go has gone stale meanwhile: it asks again, its intent written (an intent says a request
   * may have left, not that it did). Throws the run's stop if one was decided meanwhile.
   */
  private async letGo(
    request: HttpRequest,
    id: string,
    announce: () => Promise<void>,
  ): Promise<boolean> {
    const letGoAt = this.time.steadyNow();
    const blocksAtGo = this.blocksLearnt;
    const refusalsAtGo = this.keyRefusals;
    await announce();
    if (this.keyRefusals !== refusalsAtGo) await this.awaitStop(request, id);
    // One stop for the whole run: a stop decided while the intent was written (a 429's
    // cooldown past --max-wait, a 403, a lost store) sends nothing more.
    const stop = this.stopFor(request, true);
    if (stop) {
      this.unsend();
      await this.settle((state) => releaseSend(state, id));
      throw stop;
    }
    // A go is good for the moment it was given: one that took long to act on (a slow
    // disk) may now fall in another window, or past its claim; and one given before a
    // block this process has learnt since (a 429 answered meanwhile) would leave into
    // it. Ask again.
    if (this.time.steadyNow() - letGoAt > STALE_GO_MS || this.blocksLearnt !== blocksAtGo) {
      this.unsend();
      await this.settle((state) => releaseSend(state, id));
      return false;
    }
    return true;
  }

  /**
   * A request that failed before it was answered (`wasOnTheWire` if it had left): rethrows
   * what is not worth retrying, or waits a backoff and returns the network failures so far.
   */
  private async afterFailure(
    error: unknown,
    request: HttpRequest,
    id: string,
    wasOnTheWire: boolean,
    tries: { attempt: number; networkFailures: number },
  ): Promise<number> {
    // Not a byte left: it was not sent.
    if (error instanceof NetworkError && !error.requestMayHaveArrived) this.unsend();
    else if (wasOnTheWire) request.left?.();
    await this.settle((state) => releaseSend(state, id));
    if (!(error instanceof NetworkError) || !error.worthRetrying) throw error;
    const networkFailures = tries.networkFailures + 1;
    const outcome = { kind: 'network', mayHaveArrived: error.requestMayHaveArrived } as const;
    const attempts = networkAttempts(error.code);
    const giveUp = error.afterAttempts(networkFailures);
    if (retryDecision(request.method, outcome) !== 'retry' || networkFailures >= attempts)
      throw giveUp;
    const backoff = retryBackoffMs(networkFailures, this.options.random);
    if (this.refusal(backoff)) throw giveUp;
    const reason = error.code.replace(/_/g, ' ');
    const notice = { reason, attempt: tries.attempt + 1, maxAttempts: attempts };
    await this.retryPause(backoff, notice, request);
    return networkFailures;
  }

  /**
   * Learns from an answer, then says whether it is the request's last ('final'), or whether
   * the request goes again ('again'), after a backoff if need be. Throws the stop of a 429
   * that ends the run.
   */
  private async afterAnswer(
    request: HttpRequest,
    id: string,
    response: HttpResponse,
    sentAt: number,
    attempt: number,
  ): Promise<'final' | 'again'> {
    const decision = retryDecision(request.method, { kind: 'response', status: response.status });
    await this.learn(id, request, response, sentAt);
    if (decision === 'rate-limited') {
      if (this.stoppedBy) throw this.stoppedBy;
      if (attempt >= MAX_ATTEMPTS) throw this.stopWith(this.stillLimited(request, attempt));
      return 'again'; // the next reservation waits out the cooldown, or gives up
    }
    if (decision === 'final' || attempt >= MAX_ATTEMPTS) return 'final';
    const backoff = retryBackoffMs(attempt, this.options.random);
    if (this.refusal(backoff)) return 'final';
    const reason = `retry after ${response.status}`;
    const notice = { reason, attempt: attempt + 1, maxAttempts: MAX_ATTEMPTS };
    await this.retryPause(backoff, notice, request);
    return 'again';
  }

  /** Waits `ms` before the request's attempt `notice.attempt`, and says so. */
  private async retryPause(ms: number, notice: WaitNotice, request: HttpRequest): Promise<void> {
    const { reason, attempt, maxAttempts } = notice;
    this.trace(`wait ${formatDuration(ms)}: ${reason} (attempt ${attempt}/${maxAttempts})`);
    await this.pause(ms, notice, request, false);
  }

  /**
   * Waits until the policy lets this request go, asking again after every wait, and returns
   * its claim. Refuses (exit 5) a wait that --max-wait cannot cover.
   */
  private async reserve(request: HttpRequest, attempt: number): Promise<string> {
    const id = `${this.claimPrefix}.${this.claims++}`;
    this.asking.add(id);
    // Counted out (and as sent) the moment it goes, before any other request of this
    // process asks: one that then waits, and says how many were sent, counts this one.
    const went = (claim: string) => {
      this.asking.delete(id);
      this.sent++;
      return claim;
    };
    try {
      return await this.reserveAsking(request, attempt, id, went);
    } finally {
      this.asking.delete(id);
    }
  }

  private async reserveAsking(
    request: HttpRequest,
    attempt: number,
    id: string,
    went: (id: string) => string,
  ): Promise<string> {
    for (;;) {
      const stop = this.stopFor(request);
      if (stop) throw stop;
      // Awaited only when there is one to take: asking costs no turn of the event loop.
      const ahead = this.reserved.length > 0 ? await this.takeReserved() : undefined;
      if (ahead !== undefined) return went(ahead);
      const decision = await this.decide(id);
      // Claims taken ahead by a change of another request of this process cover this one.
      if (decision === 'covered') continue;
      if (decision.go) return went(id);
      const { now } = decision;
      const waitMs = Math.max(1, Math.ceil(decision.untilMs - now));
      if (decision.reason === 'learning' || decision.reason === 'crowded') {
        await this.voidDeadClaims(decision.state);
        // Not a limit: another request is learning the window, or is the one out while
        // another client shares the key, and its answer wakes us.
        await this.pause(Math.min(waitMs, LEARNING_POLL_MS), undefined, request, true);
        continue;
      }
      if (decision.reason === 'sharing') {
        await this.voidDeadDemand(decision.state);
        // Not a limit either: the budget is there, and is left a while for short processes;
        // it ends before Reset, so it adds nothing to what the window makes the work wait, nor
        // to the command's waiting. It is shown all the same: a person sees the batch wait.
        this.trace(`wait ${formatDuration(waitMs)}: ${WAIT_WORDS.sharing} (bulk)`);
        const notice = { reason: WAIT_WORDS.sharing, attempt, maxAttempts: MAX_ATTEMPTS };
        await this.pause(waitMs, notice, request, true, false);
        continue;
      }
      if (decision.reason === 'cooldown' && refusalsExhausted(decision.state)) {
        throw this.refusalStop(request, decision.state);
      }
      const banned = decision.reason === 'cooldown' && decision.state.cooldownCode === 'key_banned';
      const refusal = this.refusal(waitMs, banned);
      if (refusal) throw await this.stop(request, decision.reason, waitMs, decision.state, refusal);
      const quota = decision.state.quota;
      const localNow = this.options.clock.now();
      this.trace(
        `wait ${formatDuration(waitMs)}: ${WAIT_WORDS[decision.reason]}` +
          (decision.reason === 'quota' && quota
            ? ` (${quota.limit} until ${clockTime(localNow + waitMs, localNow)})`
            : '') +
          ` for ${request.method} ${request.url}`,
      );
      const notice = { reason: WAIT_WORDS[decision.reason], attempt, maxAttempts: MAX_ATTEMPTS };
      await this.pause(waitMs, notice, request, true);
    }
  }

  /**
   * Asks the policy whether request `id` may go, taking claims ahead for the requests of this
   * process that follow while the budget is ample (they go to `reserved`); with the server's
   * now it was decided at.
   */
  private async decide(
    id: string,
  ): Promise<(ReturnType<typeof decideSends> & { now: number }) | 'covered'> {
    const count = this.asking.size + this.backlog;
    const ids = [id];
    for (let more = Math.min(MAX_RESERVED_AHEAD, count - 1); more > 0; more--) {
      ids.push(`${this.claimPrefix}.${this.claims++}`);
    }
    const ahead = ids.slice(1);
    for (const claim of ahead) this.askedAhead.add(claim);
    // The server's now, read with the state it is compared with.
    let now = 0;
    try {
      const decision = await this.change(
        (state) => {
          now = this.time.now(state);
          const demand = this.demandOf(state, id);
          if (!demand) return { covered: state };
          const claimUntil = now + this.options.claimMs;
          return decideSends(state, now, ids, claimUntil, demand, this.time.measured);
        },
        (d) => ('covered' in d ? d.covered : d.state),
        false,
      );
      if ('covered' in decision) return 'covered';
      if (decision.go && decision.reserved.length > 0) {
        this.reserved.push(...decision.reserved);
        // Requests of this process that wait may take them.
        this.wakeWaiting();
      }
      return { ...decision, now };
    } finally {
      for (const claim of ahead) this.askedAhead.delete(claim);
    }
  }

  /**
   * What this process still has to send with no claim, request `id` included, as `state` has
   * it when the change runs rather than when it was asked for: the changes of several of its
   * requests may run together (a shared store writes them at once), each on the state the
   * ones before it left. Undefined when claims taken ahead already cover `id`: those of
   * `reserved`, and those taken by a change under way. A process never says more than it will
   * send, or the key's work would look more than a window holds (sharing.ts), nor takes ahead
   * what it will not use while others wait for the budget.
   */
  private demandOf(state: GateState, id: string): ProcessDemand | undefined {
    const inFlight = state.inFlight ?? {};
    let spare = this.reserved.length;
    for (const claim of this.askedAhead) if (inFlight[claim]) spare++;
    const unclaimed = [...this.asking].filter((asker) => !inFlight[asker]);
    if (unclaimed.indexOf(id) < spare) return undefined;
    const count = unclaimed.length + this.backlog - spare;
    return { owner: this.claimPrefix, count, short: count === 1 && this.sent === 0 };
  }

  /**
   * A claim taken ahead, if the key still has budget to spare as every process knows it now
   * (read without the lock): a cooldown or a short process learnt meanwhile returns them all.
   */
  private async takeReserved(): Promise<string | undefined> {
    const state = this.safeRead();
    if (ampleBudget(state, this.time.now(state))) return this.reserved.shift();
    await this.releaseReserved();
    return undefined;
  }

  private async releaseReserved(): Promise<void> {
    const ids = this.reserved;
    if (ids.length === 0) return;
    this.reserved = [];
    await this.settle((state) => ids.reduce((current, id) => returnUnsent(current, id), state));
  }

  /**
   * Gives back the claims taken ahead that no request used, and closes the store. Called when
   * the process is done sending.
   */
  async finish(): Promise<void> {
    await this.releaseReserved();
    this.stopRenewing?.();
    this.stopRenewing = undefined;
    await this.store.close?.();
  }

  /**
   * A 401 or 403 came while this request's intent was written: the key is refused, and the
   * batch stops on it once that answer has made its way to it. Waits for that stop (a second
   * at most) rather than send; if none comes, the request asks again, its go gone stale.
   */
  private async awaitStop(request: HttpRequest, id: string): Promise<void> {
    try {
      await this.pause(STALE_GO_MS + 1, undefined, request, false, false);
    } catch (error) {
      this.unsend();
      await this.settle((state) => releaseSend(state, id));
      throw error;
    }
  }

  /**
   * Why nothing more may leave, if the run has stopped: the user's stop or the batch's
   * (`halted`), this process's (a refused wait, too many refusals), or a lost store. A request
   * already `letGo` within a quota that the stop says is used up may still leave.
   */
  private stopFor(request: HttpRequest, letGo = false): PetsError | undefined {
    // The batch halts on this process's stop too: the same exception for a used-up quota.
    const quotaStop = letGo && this.stoppedBy !== undefined && !this.stopIsBlock;
    const halted =
      request.halted?.aborted && !(quotaStop && request.halted.reason === this.stoppedBy);
    if (request.stopSending?.aborted || request.signal?.aborted || halted) {
      return new InterruptedError();
    }
    return this.storeLost ?? (quotaStop ? undefined : this.stoppedBy);
  }

  /** Requests of this process that wait ask the gate again. */
  private wakeWaiting(): void {
    this.changed.abort(WAKE);
    this.changed = new AbortController();
  }

  /**
   * A probe whose process has died gets no answer: void its claim rather than wait it out.
   * So are the unplaced claims of a process that has ended, which time never lapses
   * (policy.ts): one seen gone, or one unseen whose lease has lapsed.
   */
  private async voidDeadClaims(state: GateState): Promise<void> {
    const see = this.options.processes?.see;
    if (!see) return;
    const ended = this.endedOwners(state, see);
    const probe = state.probe;
    const dead = Object.entries(state.inFlight ?? {})
      .filter(([id, claim]) => claim.unplaced && ended.has(ownerOf(id)))
      .map(([id]) => id);
    if (probe && !dead.includes(probe.id)) {
      const owner = ownerOf(probe.id);
      if (owner !== this.claimPrefix && see(processOf(owner)) === 'gone') dead.push(probe.id);
      else if (probe.unplaced && ended.has(owner)) dead.push(probe.id);
    }
    if (dead.length === 0) return;
    this.trace(`claims voided, their process ended: ${dead.join(', ')}`);
    await this.change((current) => dead.reduce((next, id) => releaseSend(next, id), current));
  }

  /**
   * The owners of unplaced claims that have ended: seen gone in this PID namespace, or, unseen,
   * whose lease this process has watched unrenewed for CLAIM_LEASE_MS on its own steady clock.
   * A process seen alive, and this one, never have.
   */
  private endedOwners(state: GateState, see: ProcessView['see']): Set<string> {
    const ended = new Set<string>();
    const owners = unplacedOwners(state);
    const nowMs = this.time.steadyNow();
    for (const watched of this.watched.keys())
      if (!owners.has(watched)) this.watched.delete(watched);
    for (const owner of owners) {
      if (owner === this.claimPrefix) continue;
      const seen = see(processOf(owner));
      if (seen === 'alive') continue;
      if (seen === 'gone') {
        ended.add(owner);
        continue;
      }
      const count = state.leases?.[owner];
      const watch = this.watched.get(owner);
      if (!watch || watch.count !== count) this.watched.set(owner, { count, sinceMs: nowMs });
      else if (nowMs - watch.sinceMs >= CLAIM_LEASE_MS) ended.add(owner);
    }
    return ended;
  }

  /** A process that died while saying it had requests to send will send none of them. */
  private async voidDeadDemand(state: GateState): Promise<void> {
    const see = this.options.processes?.see;
    if (!see) return;
    // One unseen (another namespace) may live: its word lapses by time (sharing.ts).
    const dead = Object.keys(state.demand ?? {}).filter(
      (owner) => owner !== this.claimPrefix && see(processOf(owner)) === 'gone',
    );
    if (dead.length === 0) return;
    await this.change((current) => dead.reduce(forgetDemand, current));
  }

  /**
   * While this process has unplaced claims in flight, renews their lease every
   * CLAIM_RENEW_MS, so that a process that cannot see it (another PID namespace) does not take
   * them as ended; stops once it has none.
   */
  private renewWhileUnplaced(): void {
    const processes = this.options.processes;
    if (!processes) return;
    const mine = unplacedOwners(this.known).has(this.claimPrefix);
    if (!mine) {
      this.stopRenewing?.();
      this.stopRenewing = undefined;
      return;
    }
    if (this.stopRenewing) return;
    let renewing = false;
    this.stopRenewing = (processes.every ?? realTimer)(CLAIM_RENEW_MS, () => {
      if (renewing) return;
      renewing = true;
      this.change((state) => keepLeases(state, this.claimPrefix, true), undefined, false)
        .catch(() => {
          // The store is lost: this process sends nothing more, and its claims lapse.
        })
        .finally(() => (renewing = false));
    });
  }

  /** Why waiting `ms` from now does not fit the command's limits (wait-limits.ts), if not. */
  private refusal(ms: number, banned = false): WaitRefusal | undefined {
    const now = this.time.steadyNow();
    // Concurrent waits count once: only what this one adds past those already counted.
    const added = Math.max(0, now + ms - Math.max(now, this.waitedUntilMs));
    return refuseWait(this.limits, { waitMs: ms, totalMs: this.waitedMs + added, banned });
  }

  /**
   * Sleeps `ms`, showing `notice` (a countdown) where there is one. A wait for a limit also
   * ends when this process learns something, so that the request asks again; a wait shown
   * adds to the command's waiting (unless not `counted`), where concurrent waits count once.
   */
  private async pause(
    ms: number,
    notice: WaitNotice | undefined,
    request: HttpRequest,
    wakeOnChange: boolean,
    counted = notice !== undefined,
  ): Promise<void> {
    const start = this.time.steadyNow();
    const signals = [request.signal, request.stopSending, request.halted];
    if (wakeOnChange) signals.push(this.changed.signal);
    const stop = followAbort(signals);
    try {
      if (notice) await this.wait(ms, notice, stop.signal);
      else await this.options.clock.sleep(ms, stop.signal);
    } catch (error) {
      if (request.signal?.aborted || request.stopSending?.aborted || request.halted?.aborted) {
        throw new InterruptedError();
      }
      if (!stop.signal.aborted) throw error;
    } finally {
      stop.dispose();
      if (counted) {
        const end = this.time.steadyNow();
        this.waitedMs += Math.max(0, end - Math.max(start, this.waitedUntilMs));
        this.waitedUntilMs = Math.max(this.waitedUntilMs, end);
      }
    }
  }

  private async learn(
    id: string,
    request: HttpRequest,
    response: HttpResponse,
    sentAt: number,
  ): Promise<void> {
    const limited = response.status === 429;
    const code = limited ? this.serverErrorCode(response.text) : undefined;
    // Read once, on this process's steady clock, after the Date has told this process's
    // offset what it can.
    const answeredAt = this.time.steadyNow();
    this.time.measure(readDate(response.headers), sentAt, answeredAt);
    const placed = this.time.placedOffsetMs ?? 0;
    const heard = readRateHeaders(response, answeredAt + placed);
    // The state keeps Reset on the server's clock, no earlier than it may be, and so a wait
    // from the server's now.
    const slack = this.time.uncertaintyMs;
    const retryAfterMs = heard.retryAfterMs === undefined ? undefined : heard.retryAfterMs + slack;
    const window = heard.window && {
      ...heard.window,
      resetAtMs: heard.window.resetAtMs + (heard.resetFromNow ? slack : 0),
    };
    let now = 0;
    let stop = false;
    let crowded = false;
    let blocked = false;
    const observe = (current: GateState) => {
      now = this.time.now(current);
      const answer = {
        status: response.status,
        serverAtLeastMs: this.time.atLeast(),
        localMs: this.options.clock.now(),
        monotonic: this.time.monotonicReading(),
        ...(window && { window }),
        ...(retryAfterMs !== undefined && { retryAfterMs }),
        code,
      };
      const next = observeAnswer(current, id, now, answer, this.options.random);
      stop = refusedTooOften(current, next);
      crowded = next.crowdedUntilMs !== undefined && current.crowdedUntilMs === undefined;
      blocked =
        crowded ||
        (next.cooldownUntilMs ?? Number.NEGATIVE_INFINITY) >
          (current.cooldownUntilMs ?? Number.NEGATIVE_INFINITY);
      return next;
    };
    // The answer stands even if the store is lost now: the request went, and its caller must
    // hear how it ended; the next request of this process stops instead.
    const state = await this.settle(observe);
    if (blocked) this.blocksLearnt++;
    if (crowded && state) this.sayCrowded(state, now);
    if (stop && state) this.refusalStop(request, state);
    if (limited && state) {
      const until = state.cooldownUntilMs ?? now;
      this.trace(
        `429${code ? ` ${code}` : ''}: nothing more is sent on this key for ${formatDuration(until - now)}` +
          (retryAfterMs === undefined
            ? ' (the server gave no Retry-After)'
            : ` (Retry-After ${formatDuration(retryAfterMs)})`) +
          ` after ${request.method} ${request.url}` +
          (this.onTheWire > 0
            ? `; ${requests(this.onTheWire)} sent before it ${this.onTheWire === 1 ? 'is' : 'are'} still on the wire`
            : ''),
      );
    }
  }

  /**
   * Another client uses the key: requests go one at a time until its window's Reset. Said once
   * a run; with a store shared by machines, the other client is not pets, and a store would
   * not help.
   */
  private sayCrowded(state: GateState, now: number): void {
    this.trace(
      `another client uses this key: one request at a time for ${formatDuration((state.crowdedUntilMs ?? now) - now)}`,
    );
    if (this.saidCrowded || this.store.shared !== undefined) return;
    this.saidCrowded = true;
    this.options.warn?.(ANOTHER_CLIENT);
  }

  /**
   * Changes the shared state as one step; when something was `learnt`, wakes this process's
   * waiting requests to ask again. A state
   * file that cannot be used (a full disk, a folder pets may not write) leaves this process
   * with a state of its own: it still keeps to the rules, only not across processes.
   */
  private async change<T = GateState>(
    step: (state: GateState) => T,
    stateOf: (result: T) => GateState = (result) => result as unknown as GateState,
    learnt = true,
  ): Promise<T> {
    if (this.storeLost) throw this.storeLost;
    let result: T;
    // Each change keeps this process's lease as its unplaced claims need it.
    let written: GateState = EMPTY_STATE;
    const leased = (value: T) => {
      written = this.options.processes
        ? keepLeases(stateOf(value), this.claimPrefix)
        : stateOf(value);
      return { state: written, result: value };
    };
    try {
      result = await this.store.update((state) => leased(step(state)));
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      if (this.store.shared !== undefined) throw this.loseStore(error);
      const reason = (error as Error).message;
      this.trace(`the rate-limit state cannot be shared: ${reason}`);
      this.options.warn?.(
        `the rate-limit state cannot be written in ${this.store.folder ?? 'the config folder'} (${reason.split(',')[0]}); this command keeps to the limits alone, not shared with other pets processes`,
      );
      const last = this.safeRead();
      this.store = memoryStore(last);
      result = await this.store.update((state) => leased(step(state)));
    }
    this.known = written;
    this.renewWhileUnplaced();
    if (learnt) this.wakeWaiting();
    return result;
  }

  /**
   * A change that settles what already happened (an answer, a request that ended unsent,
   * claims given back): with the shared store lost, it is dropped, since the claims lapse
   * there by themselves, and what happened still reaches the caller. Undefined then.
   */
  private async settle(step: (state: GateState) => GateState): Promise<GateState | undefined> {
    try {
      return await this.change(step);
    } catch (error) {
      if (error === this.storeLost) return undefined;
      throw error;
    }
  }

  /** The error that stops this process's every request from now on (exit 6). */
  private loseStore(error: unknown): NetworkError {
    if (!this.storeLost) {
      const reason = this.options.redact?.((error as Error).message) ?? (error as Error).message;
      this.trace(`the rate store ${this.store.shared} is lost: ${reason}`);
      const shared = this.store.shared;
      const text = (sentWords: string) =>
        `lost the rate store ${shared} (${reason}); without it, machines sharing this key cannot keep to its limits, so ${sentWords} and nothing more is sent`;
      this.storeLost = new NetworkError('rate_store_lost', text(this.sentWords()), {
        requestMayHaveArrived: false,
        // A store that forgot the key's state says what keeps it (redis-store.ts's StateForgotten).
        hint:
          (error as { hint?: string }).hint ??
          'Once the store is reachable again, run the same command: a batch resumes where it stopped.',
      });
      this.sentTexts.push([this.storeLost, text]);
    }
    return this.storeLost;
  }

  private safeRead(): GateState {
    try {
      return this.store.read();
    } catch {
      return EMPTY_STATE;
    }
  }

  /** A request counted as sent never left: the count, and a stop's message, say so. */
  private unsend(): void {
    this.sent--;
    for (const [error, text] of this.sentTexts) error.message = text(this.sentWords());
  }

  /** `error` stops this process's every request from now on: one stop for the whole run. */
  private stopWith<E extends PetsError>(
    error: E,
    text?: (sentWords: string) => string,
    block = true,
  ): E {
    if (!this.stoppedBy) {
      // After another client showed itself, the stop's hint (the line -q leaves) says how
      // to share the key, as the warning it silenced did.
      if (this.saidCrowded && error instanceof RateLimitError) {
        const share = ANOTHER_CLIENT.replace('another', 'Another');
        (error as { hint: string | undefined }).hint = `${error.hint ?? ''} ${share}.`.trim();
      }
      this.stoppedBy = error;
      if (text) this.sentTexts.push([error, text]);
      this.stopIsBlock = block;
    }
    return error;
  }

  /**
   * The stop after MAX_REFUSALS refusals in a row (policy.ts): exit 5 for 429s, 7 for 503s,
   * saying how many and since when.
   */
  private refusalStop(request: HttpRequest, state: GateState): PetsError {
    const refusals = state.refusals!;
    const localNow = this.options.clock.now();
    const since = this.time.toLocal(refusals.sinceMs, state);
    const until = this.time.toLocal(state.cooldownUntilMs ?? this.time.now(state), state);
    const at = clockTime(until, localNow);
    const answer = refusals.status === 429 ? '429 (rate limited)' : '503 (unavailable)';
    const text = (sentWords: string) =>
      `${request.method} ${request.url}: the server answered ${answer} ${refusals.count} times in a row since ${clockTime(since, localNow)}, ` +
      `each waited out with a longer backoff, and no request succeeded between, so ${sentWords}`;
    const details = {
      status: refusals.status,
      retryAfter: Math.max(0, Math.ceil((until - localNow) / 1000)),
      resumeAt: new Date(until),
    };
    const error =
      refusals.status === 429
        ? new RateLimitError(state.cooldownCode ?? 'rate_limited', text(this.sentWords()), {
            ...details,
            hint: `Retry after ${at}; if the key is refused again, check it with the API's provider.`,
          })
        : new ServerUnavailableError('server_unavailable', text(this.sentWords()), {
            ...details,
            hint: `The server is unavailable: try again after ${at}.`,
          });
    return this.stopWith(error, text);
  }

  private sentWords(): string {
    return this.sent === 0
      ? 'nothing was sent'
      : `pets stopped after sending ${requests(this.sent)}`;
  }

  /**
   * The stop for a wait the command's limits refuse (exit 5): what blocks the key, when the
   * next request may go (carried as `resumeAt`), and why pets does not wait for it. Every
   * request of this process after it stops too, so that the count of requests sent is final.
   */
  private async stop(
    request: HttpRequest,
    reason: WaitReason,
    waitMs: number,
    state: GateState,
    refusal: WaitRefusal,
  ): Promise<PetsError> {
    const now = this.options.clock.now();
    const until = now + waitMs;
    const at = clockTime(until, now);
    const banned = reason === 'cooldown' && state.cooldownCode === 'key_banned';
    const what = banned
      ? 'the server has temporarily banned this key'
      : reason === 'quota'
        ? `the quota of this key${state.quota ? ` (${requests(state.quota.limit)})` : ''} is used up`
        : 'the server rate limited this key (429)';
    const why =
      refusal === 'max-wait'
        ? this.beyondMaxWait(waitMs)
        : refusal === 'unattended'
          ? `longer than a batch waits unattended (${formatDuration(this.limits.eachWaitMs)})`
          : 'and a batch does not wait out a ban';
    const text = (sentWords: string) =>
      `${request.method} ${request.url}: ${what}; the next request may go at ${at}, ` +
      `in ${formatDuration(waitMs)}, ${why}, so ${sentWords}`;
    const error = new RateLimitError(
      banned ? 'key_banned' : 'rate_limited',
      text(this.sentWords()),
      {
        status: reason === 'cooldown' ? 429 : undefined,
        retryAfter: Math.ceil(waitMs / 1000),
        resumeAt: new Date(until),
        hint: banned
          ? `Stop every script that uses this key, then retry after ${at}.`
          : refusal === 'max-wait'
            ? `Retry after ${at}, or raise --max-wait.`
            : `Retry after ${at}, or give --max-wait to wait that long.`,
      },
    );
    // A quota used up blocks only the requests after those it let go, which may still leave.
    const stoppedBy = this.stopWith(error, text, reason !== 'quota');
    await this.releaseReserved();
    return stoppedBy;
  }

  /** Why a wait of `waitMs` is refused: longer than --max-wait, or than what is left of it. */
  private beyondMaxWait(waitMs: number): string {
    const flag = `--max-wait (${exactSeconds(this.options.maxWaitMs)})`;
    if (waitMs > this.options.maxWaitMs || this.waitedMs === 0) return `beyond ${flag}`;
    return `more than is left of ${flag} after the ${exactSeconds(this.waitedMs)} this command has waited`;
  }

  private stillLimited(request: HttpRequest, attempts: number): RateLimitError {
    const state = this.safeRead();
    const until = this.time.toLocal(state.cooldownUntilMs ?? this.time.now(state), state);
    return new RateLimitError(
      state.cooldownCode ?? 'rate_limited',
      `${request.method} ${request.url}: still rate limited (429) after ${attempts} attempts; ${this.sentWords()}`,
      {
        status: 429,
        retryAfter: Math.max(0, Math.ceil((until - this.options.clock.now()) / 1000)),
        resumeAt: new Date(until),
        hint: `Retry after ${clockTime(until, this.options.clock.now())}; other clients may be sharing this key.`,
      },
    );
  }

  private serverErrorCode(text: string): string | undefined {
    try {
      const code = this.options.errorCode?.(text);
      return code === undefined ? undefined : (this.options.redact?.(code) ?? code);
    } catch {
      return undefined;
    }
  }

  private trace(line: string): void {
    this.options.trace?.(line);
  }
}

function requests(count: number): string {
  return `${count} ${count === 1 ? 'request' : 'requests'}`;
}

/** A duration as the seconds a user types for --max-wait, not rounded to minutes. */
function exactSeconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}
