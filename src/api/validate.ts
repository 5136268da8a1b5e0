import { parseJson, stringifyJson, type JsonValue } from '../json/int64-json.js';
import { isPetStatus, toInt64, type ApiErrorBody, type Pet } from './contract.js';

/** A response that does not match the contract; `path` locates the bad value (e.g. `$[3].id`). */
export class ContractViolation extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path} ${problem}`);
  }
}

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readInt64(record: JsonObject, field: string, path: string): bigint {
  const given = record[field];
  const value = toInt64(given);
  if (value !== undefined) return value;
  const shown = given === undefined ? 'it is missing' : stringifyJson(given).slice(0, 40);
  throw new ContractViolation(`${path}.${field}`, `is not an int64 integer as written: ${shown}`);
}

/** Checks a Pet. Fields the contract does not name are kept, so `--json` shows what was sent. */
export function readPet(value: JsonValue, path = '$'): Pet {
  if (!isObject(value)) throw new ContractViolation(path, 'is not an object');
  const { name, status } = value;
  if (typeof name !== 'string') throw new ContractViolation(`${path}.name`, 'is not a string');
  if (status !== undefined && !isPetStatus(status)) {
    throw new ContractViolation(`${path}.status`, 'is not one of available, pending, sold');
  }
  return {
    ...value,
    id: readInt64(value, 'id', path),
    name,
    categoryId: readInt64(value, 'categoryId', path),
    ...(status === undefined ? {} : { status }),
  } as Pet;
}

export function readPets(value: JsonValue): Pet[] {
  if (!Array.isArray(value)) throw new ContractViolation('$', 'is not an array');
  return value.map((item, index) => readPet(item, `$[${index}]`));
}

/** The Error body in a response's text, or undefined when it is not JSON or not one. */
export function parseErrorBody(text: string): ApiErrorBody | undefined {
  let body: JsonValue;
  try {
    body = parseJson(text);
  } catch {
    return undefined;
  }
  if (!isObject(body)) return undefined;
  const { code, message, status } = body;
  if (typeof code !== 'string' || typeof message !== 'string' || typeof status !== 'number') {
    return undefined;
  }
  return { code, message, status };
}
