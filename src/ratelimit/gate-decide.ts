import { clockTime, formatDuration, type Clock } from '../core/clock.js';
import type { HttpRequest } from '../http/types.js';
import {
  ampleBudget,
  decideSends,
  MAX_RESERVED_AHEAD,
  refusalsExhausted,
  returnUnsent,
  type GateState,
  type ProcessDemand,
  type WaitReason,
} from './policy.js';
import { MAX_ATTEMPTS } from './retry-policy.js';
import type { ServerClock } from './server-clock.js';
import type { SharedState } from './gate-shared.js';
import type { Stops } from './gate-stops.js';
import type { Waits } from './gate-waits.js';

/** How often a request waiting for another process's first answer looks again. */
export const LEARNING_POLL_MS = 25;

const WAIT_WORDS: Record<WaitReason, string> = {
  cooldown: 'rate limited',
  quota: 'quota used up',
  learning: 'learning the limit',
  pacing: 'pacing: the server states no limit',
  sharing: 'sharing the window',
  crowded: 'one at a time: another client uses the key',
};

/** The gate's deciding: each request asks the policy (policy.ts) at the moment it would go. */
export class Deciding {
  private claims = 0;
  /** The claims of the requests asking the gate now, in the order they began to ask. */
  private readonly asking = new Set<string>();
  /** Requests the caller has said will follow those asking. */
  backlog = 0;
  /** Claims taken ahead for this process's next requests, while the budget is ample. */
  private reserved: string[] = [];
  /** Claims asked ahead by changes under way, not yet in `reserved` (demandOf). */
  private readonly askedAhead = new Set<string>();

  constructor(
    private readonly claimPrefix: string,
    private readonly claimMs: number,
    private readonly clock: Clock,
    private readonly time: ServerClock,
    private readonly shared: SharedState,
    private readonly stops: Stops,
    private readonly waits: Waits,
  ) {}

  /**
   * Waits until the policy lets this request go, asking again after every wait, and returns
   * its claim. Refuses (exit 5) a wait that --max-wait cannot cover.
   */
  async reserve(request: HttpRequest, attempt: number): Promise<string> {
    const id = `${this.claimPrefix}.${this.claims++}`;
    this.asking.add(id);
    // Counted out (and as sent) the moment it goes, before any other request of this
    // process asks: one that then waits, and says how many were sent, counts this one.
    const went = (claim: string) => {
      this.asking.delete(id);
      this.stops.sent++;
      return claim;
    };
    try {
      for (;;) {
        const stop = this.stops.stopFor(request);
        if (stop) throw stop;
        // A claim taken ahead, if the key still has budget to spare as every process knows it
        // now (read without the lock): a cooldown or a short process learnt meanwhile returns
        // them all. Awaited only then: asking costs no turn of the event loop.
        if (this.reserved.length > 0) {
          const known = this.shared.safeRead();
          if (ampleBudget(known, this.time.now(known))) return went(this.reserved.shift()!);
          await this.releaseReserved();
        }
        const decision = await this.decide(id);
        // Claims taken ahead by a change of another request of this process cover this one.
        if (decision === 'covered') continue;
        if (decision.go) return went(id);
        const { reason, state } = decision;
        const waitMs = Math.max(1, Math.ceil(decision.untilMs - decision.now));
        if (reason === 'learning' || reason === 'crowded' || reason === 'pacing') {
          // Not a limit: another request is learning the window, or is the one out while
          // another client shares the key, and its answer wakes us; or the pace learnt from a
          // server with no rate headers, the work's own time.
          if (reason !== 'pacing') await this.shared.voidDeadClaims(state);
          const pollMs = reason === 'pacing' ? waitMs : Math.min(waitMs, LEARNING_POLL_MS);
          await this.waits.pause(pollMs, undefined, request, true);
          continue;
        }
        const notice = { reason: WAIT_WORDS[reason], attempt, maxAttempts: MAX_ATTEMPTS };
        if (reason === 'sharing') {
          await this.shared.voidDeadDemand(state);
          // Not a limit either: the budget is there, and is left a while for short processes;
          // it ends before Reset, so it adds nothing to what the window makes the work wait, nor
          // to the command's waiting. It is shown all the same: a person sees the batch wait.
          this.waits.trace(`wait ${formatDuration(waitMs)}: ${notice.reason} (bulk)`);
          await this.waits.pause(waitMs, notice, request, true, false);
          continue;
        }
        if (reason === 'cooldown' && refusalsExhausted(state)) {
          throw this.stops.refusalStop(request, state);
        }
        const banned = reason === 'cooldown' && state.cooldownCode === 'key_banned';
        const refusal = this.waits.refusal(waitMs, banned);
        if (refusal) {
          const refused = this.stops.waitRefused(request, reason, waitMs, state, refusal);
          await this.releaseReserved();
          throw refused;
        }
        const quota = reason === 'quota' && state.quota;
        const localNow = this.clock.now();
        const until = quota
          ? ` (${quota.limit} until ${clockTime(localNow + waitMs, localNow)})`
          : '';
        const what = `${notice.reason}${until} for ${request.method} ${request.url}`;
        this.waits.trace(`wait ${formatDuration(waitMs)}: ${what}`);
        await this.waits.pause(waitMs, notice, request, true);
      }
    } finally {
      this.asking.delete(id);
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
    // The server's now, read with the state it is compared with; and the decision on the
    // state the change was written on (a store may run it again on a newer one).
    let now = 0;
    let decision = undefined as ReturnType<typeof decideSends> | undefined;
    try {
      const decideOn = (state: GateState) => {
        now = this.time.now(state);
        const demand = this.demandOf(state, id);
        const claimUntil = now + this.claimMs;
        decision = demand && decideSends(state, now, ids, claimUntil, demand, this.time.measured);
        return decision?.state ?? state;
      };
      await this.shared.change(decideOn, false);
      if (!decision) return 'covered';
      if (decision.go && decision.reserved.length > 0) {
        this.reserved.push(...decision.reserved);
        // Requests of this process that wait may take them.
        this.waits.wake();
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
    return { owner: this.claimPrefix, count, short: count === 1 && this.stops.sent === 0 };
  }

  async releaseReserved(): Promise<void> {
    const ids = this.reserved;
    if (ids.length === 0) return;
    this.reserved = [];
    await this.shared.settle((state) => ids.reduce(returnUnsent, state));
  }
}
