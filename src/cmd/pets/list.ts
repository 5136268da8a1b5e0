import type { ListQuery, PetsApi } from '../../api/client.js';
import type { Pet } from '../../api/contract.js';

export async function listPets(
  query: ListQuery,
  deps: { api: PetsApi; signal?: AbortSignal },
): Promise<Pet[]> {
  return deps.api.listPets(query, { signal: deps.signal });
}
