import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { INT64_MAX, INT64_MIN, toInt64, type Pet } from '../api/contract.js';
import { codeOf, systemReason, UsageError } from '../core/errors.js';
import { JsonSyntaxError, parseJson, stringifyJson } from '../json/int64-json.js';
import { toNewPet } from '../batch/input/new-pet.js';
import type { StoreSnapshot } from './pet-store.js';
import { isRecord, ownField } from './validation.js';

// The file format: { "nextId": "<int64 as digits>", "pets": [Pet, ...] }.

/**
 * A data file that cannot be read or written: the user's file to fix or name again (exit 2), not
 * a fault of pets. The message never quotes the file.
 */
export class DataFileError extends UsageError {
  constructor(
    readonly path: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`sandbox data file ${path} ${problem}`, {
      code: 'sandbox_data_unusable',
      hint: 'Fix the file, or start with --data naming another (a new file starts empty).',
      cause: options?.cause,
    });
  }
}

// nextId may be one past INT64_MAX once every id is used.
function parseNextId(value: unknown): bigint | undefined {
  const id = typeof value === 'string' && /^-?\d{1,19}$/.test(value) ? BigInt(value) : undefined;
  return id !== undefined && id >= INT64_MIN && id <= INT64_MAX + 1n ? id : toInt64(value);
}

function parsePet(value: unknown, index: number): Pet | string {
  const where = `pets[${index}]`;
  const id = isRecord(value) ? toInt64(ownField(value, 'id')) : undefined;
  if (id === undefined) return `${where}.id is not an int64 integer`;
  const checked = toNewPet(value as Record<string, unknown>, 'api');
  return typeof checked === 'string' ? `${where}: ${checked}` : { id, ...checked };
}

function parseSnapshot(text: string): StoreSnapshot | string {
  let document: unknown;
  try {
    document = parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return `is not valid JSON (${error.message})`;
    throw error;
  }
  if (!isRecord(document)) return 'must hold a JSON object with nextId and pets';
  const nextId = parseNextId(ownField(document, 'nextId'));
  if (nextId === undefined) return 'has no valid nextId (an int64 integer as a string)';
  const items = ownField(document, 'pets');
  if (!Array.isArray(items)) return 'has no pets array';
  const pets: Pet[] = [];
  const seen = new Set<bigint>();
  for (const [index, item] of items.entries()) {
    const pet = parsePet(item, index);
    if (typeof pet === 'string') return `is not valid: ${pet}`;
    if (seen.has(pet.id)) return `is not valid: pets[${index}].id is a duplicate`;
    seen.add(pet.id);
    pets.push(pet);
  }
  return { nextId, pets };
}

/** The stored snapshot, or undefined when the file does not exist yet. */
export function readDataFile(path: string): StoreSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw new DataFileError(path, `cannot be read: ${systemReason(error)}`, { cause: error });
  }
  const snapshot = parseSnapshot(text);
  if (typeof snapshot === 'string') throw new DataFileError(path, snapshot);
  return snapshot;
}

/**
 * Replaces the file atomically: a temporary file in the same folder (so rename stays on one
 * file system), flushed to disk, then renamed over the old one. Readers see the old or the
 * new store, never half of one. Mode 0600: the store is nobody else's business.
 */
export function writeDataFile(path: string, snapshot: StoreSnapshot): void {
  const text = `${stringifyJson({ nextId: String(snapshot.nextId), pets: snapshot.pets }, 2)}\n`;
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new DataFileError(path, `cannot be written: ${systemReason(error)}`, { cause: error });
  }
}
