import { LIST_LIMIT, PET_STATUSES, isPetStatus, type PetStatus } from '../api/contract.js';
import type { Validation } from './validation.js';

export interface ListQuery {
  limit: number;
  status: PetStatus | undefined;
}

const LIMIT_RULE = `limit must be an integer from ${LIST_LIMIT.min} to ${LIST_LIMIT.max} (default ${LIST_LIMIT.default})`;
const STATUS_RULE = `status must be one of ${PET_STATUSES.join(', ')}`;

/** Reads `limit` and `status` of GET /pets; other parameters are ignored. */
export function parseListQuery(params: URLSearchParams): Validation<ListQuery> {
  const problems: string[] = [];
  const limits = params.getAll('limit');
  const statuses = params.getAll('status');

  let limit: number = LIST_LIMIT.default;
  if (limits.length > 1) problems.push(`limit may be given once; ${LIMIT_RULE}`);
  else if (limits[0] !== undefined) {
    const text = limits[0];
    const value = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
    if (value >= LIST_LIMIT.min && value <= LIST_LIMIT.max) limit = value;
    else problems.push(LIMIT_RULE);
  }

  let status: PetStatus | undefined;
  if (statuses.length > 1) problems.push(`status may be given once; ${STATUS_RULE}`);
  else if (statuses[0] !== undefined) {
    if (isPetStatus(statuses[0])) status = statuses[0];
    else problems.push(STATUS_RULE);
  }

  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { limit, status } };
}
