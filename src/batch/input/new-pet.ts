import {
  PET_STATUSES,
  isPetStatus,
  parseInt64,
  toInt64,
  type NewPet,
  type PetStatus,
} from '../../api/contract.js';
import { UsageError } from '../../core/errors.js';
import { closest } from '../../core/suggest.js';

/** Where a record comes from: a file of pets (json, csv), or a body the sandbox reads (api). */
type Source = 'json' | 'csv' | 'api';
type Checked<T> = { value: T } | { problem: string };

const NAME_REQUIRED = 'name is required: a non-empty string';
const NAME_INVALID = 'name must be a non-empty string';
const CATEGORY_REQUIRED = 'categoryId is required: an integer within int64';
const CATEGORY_INVALID = 'categoryId must be an integer within int64';
const CATEGORY_QUOTED = `${CATEGORY_INVALID} (a JSON number, not a string)`;
const STATUS_INVALID = `status must be one of ${PET_STATUSES.join(', ')}`;

/** The fields a record may have: a pet's, and the id `pets list --json` writes (set aside). */
const RECORD_FIELDS = ['name', 'categoryId', 'status', 'id'];

/**
 * Refuses the fields `names` of `where` (the CSV header, a record's line) that no pet has,
 * each with the known one nearest it: a misspelt field would otherwise be dropped in silence.
 */
export function refuseUnknownFields(names: readonly string[], where: string): void {
  const unknown = names.filter((name) => !RECORD_FIELDS.includes(name));
  if (unknown.length === 0) return;
  const named = unknown.map((name) => {
    const meant = closest(name, RECORD_FIELDS);
    return meant ? `"${name}" (did you mean "${meant}"?)` : `"${name}"`;
  });
  throw new UsageError(
    `${where} names ${unknown.length === 1 ? 'a field' : 'fields'} a pet does not have: ${named.join(', ')}`,
    {
      hint: 'A pet has name, categoryId and status. Fix the name, or give --ignore-unknown to leave such fields out.',
    },
  );
}

// Own properties only: an input object's prototype is never a source of fields.
function field(fields: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(fields, key) ? fields[key] : undefined;
}

function checkName(value: unknown, source: Source): Checked<string> {
  if (value === undefined) return { problem: NAME_REQUIRED };
  // Checked after trimming, but stored as given: the spaces may be deliberate. The API sets no
  // format for a name: the sandbox takes any non-empty string, as its data files hold.
  if (typeof value !== 'string' || (source === 'api' ? value : value.trim()) === '') {
    return { problem: NAME_INVALID };
  }
  return { value };
}

function checkCategoryId(value: unknown, source: Source): Checked<bigint> {
  if (value === undefined) return { problem: CATEGORY_REQUIRED };
  if (source === 'csv') {
    if (typeof value !== 'string') return { problem: CATEGORY_INVALID };
    const digits = value.trim();
    if (digits === '') return { problem: CATEGORY_REQUIRED };
    const id = parseInt64(digits);
    return id === undefined ? { problem: CATEGORY_INVALID } : { value: id };
  }
  const id = toInt64(value);
  if (id !== undefined) return { value: id };
  return { problem: typeof value === 'string' ? CATEGORY_QUOTED : CATEGORY_INVALID };
}

function checkStatus(value: unknown, source: Source): Checked<PetStatus | undefined> {
  if (value === undefined) return { value: undefined };
  if (source === 'csv' && typeof value === 'string') {
    // A spreadsheet leaves an empty cell, or pads with spaces, where JSON would omit the key.
    const status = value.trim();
    if (status === '') return { value: undefined };
    return isPetStatus(status) ? { value: status } : { problem: STATUS_INVALID };
  }
  return isPetStatus(value) ? { value } : { problem: STATUS_INVALID };
}

/** Checks one record's fields into a NewPet, or a problem string. CSV values arrive as strings. */
export function toNewPet(fields: Record<string, unknown>, source: Source): NewPet | string {
  const name = checkName(field(fields, 'name'), source);
  const categoryId = checkCategoryId(field(fields, 'categoryId'), source);
  const status = checkStatus(field(fields, 'status'), source);
  if ('value' in name && 'value' in categoryId && 'value' in status) {
    const pet: NewPet = { name: name.value, categoryId: categoryId.value };
    if (status.value !== undefined) pet.status = status.value;
    return pet;
  }
  return [name, categoryId, status]
    .flatMap((checked) => ('problem' in checked ? [checked.problem] : []))
    .join('; ');
}
