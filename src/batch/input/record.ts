import type { NewPet } from '../../api/contract.js';

/** One record of the input. Exactly one of `pet` / `problem` is set. */
export interface InputRecord {
  /** 1-based: the physical line the record starts on (NDJSON, CSV), or its position in the array (JSON). */
  line: number;
  pet?: NewPet;
  /** Why this record cannot be sent, naming the field and the allowed values, e.g. 'status must be one of available, pending, sold'. Never longer than ~200 chars and never echoes more than a short excerpt of the input. */
  problem?: string;
}

/**
 * What the readers set aside without it being a problem, counted for one notice at the end:
 * `ids`, records that carry an id, which is the server's to assign.
 */
export interface ReadNotes {
  ids: number;
}
