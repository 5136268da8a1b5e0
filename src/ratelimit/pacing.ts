// Pacing for a server that sends no rate headers (nginx limit_req, HAProxy, most gateways):
// its rate is learnt from its 429s, as TCP and AWS's adaptive retry learn theirs. Pure
// functions of the pace and the moment, kept in the key's shared state (policy.ts), so that
// every pets process on the key goes at one pace between them.
//
// A headerless server's first answer starts a ramp: the gap between sends halves with each
// success, until it is too short to matter (the server states no limit) or a 429 comes. A 429
// marks its gap as too short: the gap grows (by half, or fourfold after no success at all),
// and each success then takes a quarter off what the gap has above the gap refused. A 429
// after a success at a longer gap places the rate between the two: the pace keeps to the
// gap accepted, a margin above it for jitter, and stops probing. The gap refused ages after a
// minute without 429s, so the pace probes back up slowly.

export interface Pace {
  /** The least time between two sends on the key. */
  gapMs: number;
  /** The longest gap a send was refused at (0: none yet, the pace is ramping). */
  refusedGapMs: number;
  /** When the last 429 came, or the pace began. */
  sinceMs: number;
  /** Successes since then. */
  accepted: number;
  /** The shortest gap a send was accepted at since then. */
  acceptedGapMs?: number;
  /** When the last request went. */
  lastSentMs?: number;
}

/** The first gap of a ramp, on a server that has shown no limit yet. */
const RAMP_START_MS = 200;
/** After a 429 with nothing learnt before it, the gap starts here. */
const FIRST_REFUSAL_GAP_MS = 1_000;
/** After a 429 with no success since the last, the gap refused grows by this much. */
const UNKNOWN_FACTOR = 4;
/** A ramp ends, and the pace with it, once its gap is shorter than this. */
const RAMP_END_MS = 4;
/** A 429 lengthens the gap it came at by this much, at least. */
const REFUSAL_FACTOR = 1.5;
/** After a 429, each success takes this share off what the gap has above the floor. */
const PROBE_STEP = 0.25;
/** The margin above a gap refused or accepted, for the network's jitter; at least JITTER_MS. */
const FLOOR_MARGIN = 1.04;
const JITTER_MS = 10;
/** The gap refused holds this long after a 429, then halves every AGE_HALF_MS. */
const HOLD_MS = 60_000;
const AGE_HALF_MS = 120_000;

/** The pace a headerless server's first answer starts: a fast ramp. */
export function startPace(nowMs: number): Pace {
  return { gapMs: RAMP_START_MS, refusedGapMs: 0, sinceMs: nowMs, accepted: 0, lastSentMs: nowMs };
}

/** The gap refused as it stands at `nowMs`, aged. */
function refusedNow(pace: Pace, nowMs: number): number {
  const age = nowMs - pace.sinceMs - HOLD_MS;
  return age <= 0 ? pace.refusedGapMs : pace.refusedGapMs * 0.5 ** (age / AGE_HALF_MS);
}

/** When the next request may go, by the pace. */
export function pacedAt(pace: Pace): number {
  return (pace.lastSentMs ?? Number.NEGATIVE_INFINITY) + pace.gapMs;
}

/** A request goes at `nowMs`: the gap it went at, and the pace with it counted. */
export function paceSend(pace: Pace, nowMs: number): { pace: Pace; gapMs: number } {
  const gapMs = Math.round(Math.max(pace.gapMs, nowMs - (pace.lastSentMs ?? nowMs)));
  return { pace: { ...pace, lastSentMs: nowMs }, gapMs };
}

/** A request sent `sentGapMs` after the one before succeeded. Undefined: the ramp found no limit. */
export function paceAccepted(pace: Pace, sentGapMs: number, nowMs: number): Pace | undefined {
  const acceptedGapMs = Math.min(pace.acceptedGapMs ?? sentGapMs, sentGapMs);
  const accepted = { ...pace, accepted: pace.accepted + 1, acceptedGapMs };
  if (pace.refusedGapMs === 0) {
    const gapMs = Math.round(pace.gapMs / 2);
    return gapMs < RAMP_END_MS ? undefined : { ...accepted, gapMs };
  }
  const floorMs = refusedNow(pace, nowMs);
  const gapMs = Math.ceil(Math.max(floorMs, pace.gapMs - (pace.gapMs - floorMs) * PROBE_STEP));
  return { ...accepted, gapMs };
}

/**
 * A request sent at `sentGapMs` was refused (429) by a server that said nothing of its
 * limit: that gap is too short (see the head of this file).
 */
export function paceRefused(pace: Pace, sentGapMs: number, nowMs: number): Pace {
  const refused = (gapMs: number, refusedGapMs: number) => {
    const { lastSentMs } = pace;
    return { gapMs: Math.ceil(gapMs), refusedGapMs, sinceMs: nowMs, accepted: 0, lastSentMs };
  };
  const known = pace.acceptedGapMs;
  // Accepted at a longer gap since the last 429, refused at this one: the rate lies between,
  // and the pace keeps to the gap accepted, a margin above for the network's jitter.
  if (known !== undefined && known > sentGapMs && pace.refusedGapMs > 0) {
    const gapMs = Math.ceil(Math.max(known * FLOOR_MARGIN, known + JITTER_MS));
    return refused(gapMs, gapMs);
  }
  const learnt = pace.accepted > 0;
  const refusedGapMs = Math.ceil(Math.max(refusedNow(pace, nowMs), sentGapMs * FLOOR_MARGIN));
  const unknown = sentGapMs > 0 ? sentGapMs * UNKNOWN_FACTOR : FIRST_REFUSAL_GAP_MS;
  const gapMs = Math.max(sentGapMs * REFUSAL_FACTOR, learnt ? 0 : unknown);
  return refused(Math.max(gapMs, refusedGapMs), refusedGapMs);
}
