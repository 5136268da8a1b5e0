import { PET_STATUSES, type NewPet } from '../api/contract.js';

const NAMES = [
  'Bella',
  'Max',
  'Luna',
  'Charlie',
  'Lucy',
  'Cooper',
  'Daisy',
  'Milo',
  'Rosie',
  'Oscar',
  'Coco',
  'Teddy',
] as const;

const CATEGORY_COUNT = 4;

/**
 * `count` sample pets, the same every time. Every fifth has no status, because the spec makes
 * status optional and clients must cope with that.
 */
export function samplePets(count: number): NewPet[] {
  return Array.from({ length: count }, (_, index) => {
    const round = Math.floor(index / NAMES.length);
    const name = `${NAMES[index % NAMES.length]}${round === 0 ? '' : ` ${round + 1}`}`;
    const categoryId = BigInt((index % CATEGORY_COUNT) + 1);
    const status = index % 5 === 4 ? undefined : PET_STATUSES[index % PET_STATUSES.length];
    return status === undefined ? { name, categoryId } : { name, categoryId, status };
  });
}
