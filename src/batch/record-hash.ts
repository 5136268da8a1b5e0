import { hash } from 'node:crypto';
import type { NewPet } from '../api/contract.js';
import { stringifyJson } from '../json/int64-json.js';

/** Fingerprints what would be sent, not how the line was written: reformatting is not a change. */
export function recordHash(pet: NewPet): string {
  const canonical = stringifyJson({
    name: pet.name,
    categoryId: pet.categoryId,
    status: pet.status ?? null,
  });
  // crypto.hash is the one-shot form: no Hash object per record in a 200,000-record batch.
  return hash('sha256', canonical, 'hex').slice(0, 16);
}
