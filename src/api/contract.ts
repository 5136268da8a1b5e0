// The Animal Store API v1 as both the client and the sandbox understand it.
// Ids are bigint everywhere inside pets: the API's ids are int64 and JSON numbers lose
// precision above 2^53.

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

export const GET_PET_REMOVAL_DATE = '2030-12-05';

export interface NewPet {
  name: string;
  categoryId: bigint;
  status?: PetStatus;
}

export interface Pet extends NewPet {
  id: bigint;
}

export interface ApiErrorBody {
  code: string;
  message: string;
  status: number;
}

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

export function parseInt64(text: string): bigint | undefined {
  return /^-?\d{1,19}$/.test(text) ? toInt64(BigInt(text)) : undefined;
}

/** Accepts a JSON integer as parsed by our int64-safe parser (number or bigint). */
export function toInt64(value: unknown): bigint | undefined {
  if (typeof value === 'bigint')
    return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return undefined;
}
