import { createHash } from 'node:crypto';
import type { NewPet } from '../api/contract.js';
import { stringifyJson } from '../json/int64-json.js';

/** Fingerprints what would be sent, not how the line was written: reformatting is not a change. */
export function recordHash(pet: NewPet): string {
  const canonical = stringifyJson({
    name: pet.name,
    categoryId: pet.categoryId,
    status: pet.status ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}
