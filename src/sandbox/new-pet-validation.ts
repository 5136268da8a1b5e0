import {
  INT64_MAX,
  INT64_MIN,
  PET_STATUSES,
  isPetStatus,
  toInt64,
  type NewPet,
} from '../api/contract.js';
import { describeJsonType, isRecord, ownField, type Validation } from './validation.js';

const INT64_RANGE = `from ${INT64_MIN} to ${INT64_MAX}`;

/**
 * Checks a parsed body against NewPet. Unknown fields, a client-supplied id among them,
 * are ignored: the service assigns ids. Each problem names its field.
 */
export function validateNewPet(body: unknown): Validation<NewPet> {
  if (!isRecord(body)) {
    return {
      ok: false,
      problems: [
        `the body must be a JSON object with name, categoryId and optional status, not ${describeJsonType(body)}`,
      ],
    };
  }
  const problems: string[] = [];

  const name = ownField(body, 'name');
  if (name === undefined) problems.push('name is required: a non-empty string');
  else if (typeof name !== 'string' || name === '') {
    problems.push(
      `name must be a non-empty string, not ${name === '' ? 'an empty string' : describeJsonType(name)}`,
    );
  }

  const categoryIdValue = ownField(body, 'categoryId');
  const categoryId = toInt64(categoryIdValue);
  if (categoryIdValue === undefined) {
    problems.push(`categoryId is required: an integer ${INT64_RANGE}`);
  } else if (categoryId === undefined) {
    const kind = describeJsonType(categoryIdValue);
    problems.push(
      `categoryId must be an integer ${INT64_RANGE}, not ${kind === 'an integer' ? 'an integer out of that range' : kind}`,
    );
  }

  const status = ownField(body, 'status');
  if (status !== undefined && !isPetStatus(status)) {
    problems.push(`status must be one of ${PET_STATUSES.join(', ')}`);
  }

  if (problems.length > 0 || typeof name !== 'string' || categoryId === undefined) {
    return { ok: false, problems };
  }
  return {
    ok: true,
    value: isPetStatus(status) ? { name, categoryId, status } : { name, categoryId },
  };
}
