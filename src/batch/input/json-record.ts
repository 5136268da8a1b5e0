import type { JsonValue } from '../../json/int64-json.js';
import { refuseUnknownFields, toNewPet } from './new-pet.js';
import type { InputRecord, ReadNotes } from './record.js';

const NOT_AN_OBJECT = 'not a JSON object; each pet must be an object with name and categoryId';

/** Turns one parsed JSON value (an NDJSON line or an array element) into a record. */
export function recordFromJson(
  line: number,
  value: JsonValue,
  notes?: ReadNotes,
  ignoreUnknown?: boolean,
): InputRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { line, problem: NOT_AN_OBJECT };
  }
  if (!ignoreUnknown) refuseUnknownFields(Object.keys(value), `line ${line}`);
  // `pets list --json` output carries ids: the server assigns a new one, so it is set aside.
  if (notes && Object.hasOwn(value, 'id')) notes.ids++;
  const pet = toNewPet(value, 'json');
  return typeof pet === 'string' ? { line, problem: pet } : { line, pet };
}
