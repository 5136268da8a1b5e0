import type { ErrorJson } from '../core/errors.js';

/** What earlier runs left of one record. An intent with no outcome is `unknown`. */
export type PreviousRecord =
  | { outcome: 'created'; id: bigint }
  | { outcome: 'unknown' }
  | { outcome: 'failed'; retryable: boolean; error?: ErrorJson };

const EMPTY = 0;
const CREATED = 1;
const UNKNOWN = 2;
const RETRYABLE = 3;
const FINAL = 4;
const MAX_LOAD = 0.75;
const MIN_SLOTS = 16;
// A hash kept to 31 bits before it is reduced to a slot: V8 then does the arithmetic on small
// integers, not on heap numbers made per lookup.
const SMALL = 0x7fffffff;

/**
 * Slots for `capacity` entries at the highest load allowed. Any count, not only a power of
 * two, so that sizing for a known number of entries does not waste up to half the arrays.
 */
function slotsFor(capacity: number): number {
  return Math.max(MIN_SLOTS, Math.ceil(capacity / MAX_LOAD) + 1);
}
const NAMED = /^([0-9a-f]{8})([0-9a-f]{8})\.(\d{1,9})$/;

/** A 32-bit hash of a string, for record names not in the journal's usual form. */
function stringHash(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1e995);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * The last word of the journal on each record, in typed arrays: 21 bytes a slot rather than a
 * string and an object per record, so that resuming a journal of 200,000 records holds a few
 * MB. A record name `<16 hex digits>.<occurrence>` is kept exactly; any other name by a 64-bit
 * hash of it. Only final failures keep their error, to repeat it.
 */
export class RecordIndex {
  private high = new Uint32Array(0);
  private low = new Uint32Array(0);
  private occurrence = new Uint32Array(0);
  private states = new Uint8Array(0);
  private ids = new BigInt64Array(0);
  private readonly errors = new Map<number, ErrorJson>();
  private count = 0;

  /** Room for `capacity` records before it grows. */
  constructor(capacity = 768) {
    this.allocate(slotsFor(capacity));
  }

  get size(): number {
    return this.count;
  }

  get(name: string): PreviousRecord | undefined {
    const slot = this.find(name);
    switch (this.states[slot]) {
      case CREATED:
        return { outcome: 'created', id: this.ids[slot]! };
      case UNKNOWN:
        return { outcome: 'unknown' };
      case RETRYABLE:
        return { outcome: 'failed', retryable: true };
      case FINAL: {
        const error = this.errors.get(slot);
        return { outcome: 'failed', retryable: false, ...(error ? { error } : {}) };
      }
      default:
        return undefined;
    }
  }

  set(name: string, record: PreviousRecord): void {
    let slot = this.find(name);
    // Only a new record adds load: an index sized for its records never grows on an update.
    if (this.states[slot] === EMPTY && (this.count + 1) / this.states.length > MAX_LOAD) {
      this.grow();
      slot = this.find(name);
    }
    if (this.states[slot] === EMPTY) {
      const [high, low, occurrence] = this.keyOf(name);
      this.high[slot] = high;
      this.low[slot] = low;
      this.occurrence[slot] = occurrence;
      this.count++;
    }
    this.errors.delete(slot);
    this.ids[slot] = 0n;
    switch (record.outcome) {
      case 'created':
        this.states[slot] = CREATED;
        this.ids[slot] = record.id;
        break;
      case 'unknown':
        this.states[slot] = UNKNOWN;
        break;
      case 'failed':
        this.states[slot] = record.retryable ? RETRYABLE : FINAL;
        if (!record.retryable && record.error) this.errors.set(slot, record.error);
        break;
    }
  }

  private keyOf(name: string): [number, number, number] {
    const named = NAMED.exec(name);
    if (named) return [parseInt(named[1]!, 16), parseInt(named[2]!, 16), Number(named[3])];
    return [stringHash(name, 0x9747b28c), stringHash(name, 0x1b873593), 0xffffffff];
  }

  /** The slot holding `name`, or the empty slot where it would go. */
  private find(name: string): number {
    const [high, low, occurrence] = this.keyOf(name);
    return this.probe(high, low, occurrence);
  }

  private probe(high: number, low: number, occurrence: number): number {
    const slots = this.states.length;
    let slot = ((low ^ Math.imul(occurrence, 0x9e3779b1)) & SMALL) % slots;
    while (
      this.states[slot] !== EMPTY &&
      !(this.low[slot] === low && this.high[slot] === high && this.occurrence[slot] === occurrence)
    ) {
      slot = slot + 1 === slots ? 0 : slot + 1;
    }
    return slot;
  }

  private allocate(size: number): void {
    this.high = new Uint32Array(size);
    this.low = new Uint32Array(size);
    this.occurrence = new Uint32Array(size);
    this.states = new Uint8Array(size);
    this.ids = new BigInt64Array(size);
  }

  private grow(): void {
    const { high, low, occurrence, states, ids } = this;
    const errors = new Map(this.errors);
    this.errors.clear();
    this.allocate(states.length * 2);
    for (let old = 0; old < states.length; old++) {
      if (states[old] === EMPTY) continue;
      const slot = this.probe(high[old]!, low[old]!, occurrence[old]!);
      this.high[slot] = high[old]!;
      this.low[slot] = low[old]!;
      this.occurrence[slot] = occurrence[old]!;
      this.states[slot] = states[old]!;
      this.ids[slot] = ids[old]!;
      const error = errors.get(old);
      if (error) this.errors.set(slot, error);
    }
  }
}

/**
 * Counts records by content hash (16 hex digits) in typed arrays, to name each one's
 * occurrence among identical records without a string per record in memory.
 */
export class OccurrenceCounter {
  private high: Uint32Array;
  private low: Uint32Array;
  private counts: Uint32Array;
  private used = 0;

  /** Room for `capacity` distinct hashes before it grows. */
  constructor(capacity = 768) {
    const size = slotsFor(capacity);
    this.high = new Uint32Array(size);
    this.low = new Uint32Array(size);
    this.counts = new Uint32Array(size);
  }

  /** How many times `hash` was seen before; counts this time. */
  next(hash: string): number {
    if ((this.used + 1) / this.counts.length > MAX_LOAD) this.grow();
    const high = parseInt(hash.slice(0, 8), 16) >>> 0;
    const low = parseInt(hash.slice(8, 16), 16) >>> 0;
    const slot = this.probe(high, low);
    const seen = this.counts[slot]!;
    if (seen === 0) {
      this.high[slot] = high;
      this.low[slot] = low;
      this.used++;
    }
    this.counts[slot] = seen + 1;
    return seen;
  }

  private probe(high: number, low: number): number {
    const slots = this.counts.length;
    let slot = (low & SMALL) % slots;
    while (this.counts[slot] !== 0 && !(this.low[slot] === low && this.high[slot] === high)) {
      slot = slot + 1 === slots ? 0 : slot + 1;
    }
    return slot;
  }

  private grow(): void {
    const { high, low, counts } = this;
    this.high = new Uint32Array(counts.length * 2);
    this.low = new Uint32Array(counts.length * 2);
    this.counts = new Uint32Array(counts.length * 2);
    for (let old = 0; old < counts.length; old++) {
      if (counts[old] === 0) continue;
      const slot = this.probe(high[old]!, low[old]!);
      this.high[slot] = high[old]!;
      this.low[slot] = low[old]!;
      this.counts[slot] = counts[old]!;
    }
  }
}
