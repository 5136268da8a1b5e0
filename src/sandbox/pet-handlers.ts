import { parseInt64 } from '../api/contract.js';
import { JsonSyntaxError, parseJson } from '../json/int64-json.js';
import { DataFileError } from './data-file.js';
import type { BodyResult } from './read-body.js';
import { parseListQuery } from './list-query.js';
import { toNewPet } from '../batch/input/new-pet.js';
import { IdsExhaustedError, type PetStore } from './pet-store.js';
import { errorResponse, jsonResponse, type SandboxResponse } from './responses.js';
import { isRecord } from './validation.js';

export const MAX_BODY_BYTES = 1024 * 1024;

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

/** GET /pets: at most `limit` pets in id order, all with `status` when it is given. */
export function listPets(store: PetStore, query: URLSearchParams): SandboxResponse {
  const parsed = parseListQuery(query);
  if (!parsed.ok) return errorResponse(400, 'invalid_query', parsed.problems.join('; '));
  return jsonResponse(200, store.list(parsed.value.limit, parsed.value.status));
}

/** GET /pets/{petId}. An id that is not an int64 cannot name a pet, so it is a 404 too. */
export function getPet(store: PetStore, petIdText: string): SandboxResponse {
  const id = parseInt64(petIdText);
  const pet = id === undefined ? undefined : store.get(id);
  if (pet !== undefined) return jsonResponse(200, pet);
  const reason =
    id === undefined ? 'petId must be an int64 integer' : `no pet has the id ${String(id)}`;
  return errorResponse(404, 'not_found', `pet not found: ${reason}`);
}

/** POST /pets: validates a NewPet and stores it under the next id. */
export function createPet(
  store: PetStore,
  contentType: string | undefined,
  body: Exclude<BodyResult, { kind: 'aborted' }>,
): SandboxResponse {
  if (body.kind === 'too_large') {
    return errorResponse(
      413,
      'payload_too_large',
      `the request body must be at most ${MAX_BODY_BYTES} bytes`,
    );
  }
  if (body.bytes.length === 0) {
    return errorResponse(400, 'invalid_body', 'the request body is missing: send a NewPet as JSON');
  }
  const mediaType = contentType?.split(';')[0]?.trim() ?? '';
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    return errorResponse(
      400,
      'invalid_body',
      'the request body must be JSON sent with Content-Type: application/json',
    );
  }
  let document: unknown;
  try {
    document = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(body.bytes));
  } catch (error) {
    const detail = error instanceof JsonSyntaxError ? error.message : 'invalid UTF-8';
    return errorResponse(400, 'invalid_json', `the request body is not valid JSON: ${detail}`);
  }
  // The client's own check of a record (unknown fields, a client's id among them, ignored).
  const checked = isRecord(document)
    ? toNewPet(document as Record<string, unknown>, 'api')
    : 'the body must be a JSON object with name, categoryId and optional status';
  if (typeof checked === 'string') return errorResponse(400, 'invalid_body', checked);
  try {
    const pet = store.create(checked);
    return jsonResponse(201, pet, { location: `/v1/pets/${pet.id}` });
  } catch (error) {
    if (error instanceof IdsExhaustedError) {
      return errorResponse(500, 'ids_exhausted', 'the sandbox has no int64 ids left to assign');
    }
    if (error instanceof DataFileError) {
      return errorResponse(500, 'storage_failed', `the pet was not created: ${error.message}`);
    }
    throw error;
  }
}
