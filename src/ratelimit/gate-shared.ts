// The key's state shared with the other pets processes on it, as the gate changes it: one
// change at a time under the store's lock, this process's leases kept as its unplaced claims
// need them, and the claims and demand of processes that have ended voided.

import { InterruptedError } from '../core/errors.js';
import { EMPTY_STATE, releaseSend, type GateState } from './policy.js';
import { forgetDemand } from './sharing.js';
import type { ServerClock } from './server-clock.js';
import { memoryStore, type StateStore } from './state-store.js';
import type { Stops } from './gate-stops.js';

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
  if (JSON.stringify(leases) === JSON.stringify(state.leases ?? {})) return state;
  const next: GateState = { ...state, leases };
  if (Object.keys(leases).length === 0) delete next.leases;
  return next;
}

const realTimer = (everyMs: number, renew: () => void) => {
  const timer = setInterval(renew, everyMs).unref();
  return () => clearInterval(timer);
};

export class SharedState {
  /** The shared state as this process last changed it: what it knows without reading. */
  known: GateState = EMPTY_STATE;
  /** Stops renewing this process's lease: set while it has unplaced claims in flight. */
  private stopRenewing?: () => void;
  /** The leases of other processes this one watches: each count, and since when (steady). */
  private readonly watched = new Map<string, { count: number | undefined; sinceMs: number }>();

  constructor(
    public store: StateStore,
    private readonly owner: string,
    private readonly time: ServerClock,
    private readonly stops: Stops,
    private readonly hooks: {
      processes?: ProcessView;
      warn?: (line: string) => void;
      trace: (line: string) => void;
      /** Called after a change that learnt something. */
      learnt: () => void;
    },
  ) {}

  /**
   * A probe whose process has died gets no answer: void its claim rather than wait it out.
   * So are the unplaced claims of a process that has ended, which time never lapses
   * (policy.ts): one seen gone, or one unseen whose lease has lapsed.
   */
  async voidDeadClaims(state: GateState): Promise<void> {
    const see = this.hooks.processes?.see;
    if (!see) return;
    const ended = this.endedOwners(state, see);
    const probe = state.probe;
    const dead = Object.entries(state.inFlight ?? {})
      .filter(([id, claim]) => claim.unplaced && ended.has(ownerOf(id)))
      .map(([id]) => id);
    if (probe && !dead.includes(probe.id)) {
      const owner = ownerOf(probe.id);
      if (owner !== this.owner && see(processOf(owner)) === 'gone') dead.push(probe.id);
      else if (probe.unplaced && ended.has(owner)) dead.push(probe.id);
    }
    if (dead.length === 0) return;
    this.hooks.trace(`claims voided, their process ended: ${dead.join(', ')}`);
    await this.change((current) => dead.reduce(releaseSend, current));
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
      if (owner === this.owner) continue;
      const seen = see(processOf(owner));
      if (seen === 'alive') continue;
      const count = state.leases?.[owner];
      const watch = this.watched.get(owner);
      const unrenewed = watch !== undefined && watch.count === count;
      if (seen === 'gone' || (unrenewed && nowMs - watch.sinceMs >= CLAIM_LEASE_MS))
        ended.add(owner);
      else if (!unrenewed) this.watched.set(owner, { count, sinceMs: nowMs });
    }
    return ended;
  }

  /** A process that died while saying it had requests to send will send none of them. */
  async voidDeadDemand(state: GateState): Promise<void> {
    const see = this.hooks.processes?.see;
    if (!see) return;
    // One unseen (another namespace) may live: its word lapses by time (sharing.ts).
    const dead = Object.keys(state.demand ?? {}).filter(
      (owner) => owner !== this.owner && see(processOf(owner)) === 'gone',
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
    const processes = this.hooks.processes;
    if (!processes) return;
    if (!unplacedOwners(this.known).has(this.owner)) {
      this.stopRenewing?.();
      this.stopRenewing = undefined;
      return;
    }
    if (this.stopRenewing) return;
    let renewing = false;
    this.stopRenewing = (processes.every ?? realTimer)(CLAIM_RENEW_MS, () => {
      if (renewing) return;
      renewing = true;
      this.change((state) => keepLeases(state, this.owner, true), false)
        .catch(() => {
          // The store is lost: this process sends nothing more, and its claims lapse.
        })
        .finally(() => (renewing = false));
    });
  }

  /**
   * Changes the shared state as one step; when something was `learnt`, wakes this process's
   * waiting requests to ask again. A state
   * file that cannot be used (a full disk, a folder pets may not write) leaves this process
   * with a state of its own: it still keeps to the rules, only not across processes.
   */
  async change(step: (state: GateState) => GateState, learnt = true): Promise<GateState> {
    if (this.stops.storeLost) throw this.stops.storeLost;
    // Each change keeps this process's lease as its unplaced claims need it.
    const leased = (state: GateState) => {
      const next = step(state);
      const written = this.hooks.processes ? keepLeases(next, this.owner) : next;
      return { state: written, result: written };
    };
    let written: GateState;
    try {
      written = await this.store.update(leased);
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      if (this.store.shared !== undefined) throw this.stops.loseStore(error, this.store.shared);
      const reason = (error as Error).message;
      this.hooks.trace(`the rate-limit state cannot be shared: ${reason}`);
      this.hooks.warn?.(
        `the rate-limit state cannot be written in ${this.store.folder ?? 'the config folder'} (${reason.split(',')[0]}); this command keeps to the limits alone, not shared with other pets processes`,
      );
      this.store = memoryStore(this.safeRead());
      written = await this.store.update(leased);
    }
    this.known = written;
    this.renewWhileUnplaced();
    if (learnt) this.hooks.learnt();
    return written;
  }

  /**
   * A change that settles what already happened (an answer, a request that ended unsent,
   * claims given back): with the shared store lost, it is dropped, since the claims lapse
   * there by themselves, and what happened still reaches the caller. Undefined then.
   */
  async settle(step: (state: GateState) => GateState): Promise<GateState | undefined> {
    try {
      return await this.change(step);
    } catch (error) {
      if (error === this.stops.storeLost) return undefined;
      throw error;
    }
  }

  safeRead(): GateState {
    try {
      return this.store.read();
    } catch {
      return EMPTY_STATE;
    }
  }

  /** Stops renewing this process's lease, and closes the store. */
  async close(): Promise<void> {
    this.stopRenewing?.();
    this.stopRenewing = undefined;
    await this.store.close?.();
  }
}
