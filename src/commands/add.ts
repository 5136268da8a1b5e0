import type { PetsApi } from '../api/client.js';
import type { NewPet, Pet } from '../api/contract.js';

export async function addPet(
  pet: NewPet,
  deps: { api: PetsApi; signal?: AbortSignal },
): Promise<Pet> {
  return deps.api.createPet(pet, { signal: deps.signal });
}
