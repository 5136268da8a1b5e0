import type { NewPet } from '../../api/contract.js';

/** One record of the input. Exactly one of `pet` / `problem` is set. */
export interface InputRecord {
  /** 1-based: the physical line the record starts on (NDJSON, CSV), or its position in the array (JSON). */
  line: number;
  pet?: NewPet;
  /** Why this record cannot be sent, naming the field and the allowed values, e.g. 'status must be one of available, pending, sold'. Never longer than ~200 chars and never echoes more than a short excerpt of the input. */
  problem?: string;
}
