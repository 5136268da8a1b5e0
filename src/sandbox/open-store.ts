import { readDataFile, writeDataFile } from './data-file.js';
import { PetStore, type PersistSnapshot } from './pet-store.js';
import { samplePets } from './seed.js';

export interface StoreSource {
  dataFile: string | undefined;
  firstId: bigint;
  seed: number;
}

/**
 * Loads the store from the data file, or starts one at `firstId`, and seeds it when empty.
 * A new data file is written at once, so a folder that cannot hold it fails at startup and
 * not at the first create.
 */
export function openStore({ dataFile, firstId, seed }: StoreSource): PetStore {
  const stored = dataFile === undefined ? undefined : readDataFile(dataFile);
  const persist: PersistSnapshot =
    dataFile === undefined ? () => {} : (take) => writeDataFile(dataFile, take());
  const store = new PetStore(stored ?? { nextId: firstId, pets: [] }, persist);
  if (store.size === 0 && seed > 0) store.createMany(samplePets(seed));
  else if (stored === undefined) persist(() => store.snapshot());
  return store;
}
