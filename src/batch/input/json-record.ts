import type { JsonValue } from '../../json/int64-json.js';
import { toNewPet } from './new-pet.js';
import type { InputRecord } from './record.js';

const NOT_AN_OBJECT = 'not a JSON object; each pet must be an object with name and categoryId';

/** Turns one parsed JSON value (an NDJSON line or an array element) into a record. */
export function recordFromJson(line: number, value: JsonValue): InputRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { line, problem: NOT_AN_OBJECT };
  }
  const pet = toNewPet(value, 'json');
  return typeof pet === 'string' ? { line, problem: pet } : { line, pet };
}
