import type { PetsApi } from '../../api/client.js';
import type { NewPet, Pet } from '../../api/contract.js';
import { withAddOutcome } from '../../api/create-outcome.js';

/** Creates one pet; a failure always says whether the pet was, may have been, or was not created. */
export async function addPet(
  pet: NewPet,
  deps: { api: PetsApi; signal?: AbortSignal },
): Promise<Pet> {
  try {
    return await deps.api.createPet(pet, { signal: deps.signal });
  } catch (error) {
    throw withAddOutcome(error, pet);
  }
}
