import { INT64_MAX, type NewPet, type Pet, type PetStatus } from '../api/contract.js';

export interface StoreSnapshot {
  nextId: bigint;
  pets: Pet[];
}

/**
 * Saves the snapshot that `take` builds; throws when it cannot, and the store then keeps its
 * previous state. The snapshot is built only when there is somewhere to save it: copying
 * the store on every create would make an in-memory sandbox quadratic.
 */
export type PersistSnapshot = (take: () => StoreSnapshot) => void;

export class IdsExhaustedError extends Error {
  constructor() {
    super('no int64 ids are left to assign');
    this.name = 'IdsExhaustedError';
  }
}

function copyPet(pet: Pet): Pet {
  const { id, name, categoryId, status } = pet;
  return status === undefined ? { id, name, categoryId } : { id, name, categoryId, status };
}

/**
 * The pets of one sandbox, in id order. Ids are assigned from `nextId` upwards and never
 * reused, so insertion order is id order.
 */
export class PetStore {
  private readonly petsById = new Map<bigint, Pet>();
  private nextId: bigint;

  constructor(
    initial: StoreSnapshot,
    private readonly persist: PersistSnapshot,
  ) {
    const sorted = [...initial.pets].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const pet of sorted) this.petsById.set(pet.id, copyPet(pet));
    const last = sorted.at(-1);
    this.nextId = last !== undefined && last.id >= initial.nextId ? last.id + 1n : initial.nextId;
  }

  get size(): number {
    return this.petsById.size;
  }

  list(limit: number, status: PetStatus | undefined): Pet[] {
    const found: Pet[] = [];
    for (const pet of this.petsById.values()) {
      if (found.length >= limit) break;
      if (status === undefined || pet.status === status) found.push(copyPet(pet));
    }
    return found;
  }

  get(id: bigint): Pet | undefined {
    const pet = this.petsById.get(id);
    return pet && copyPet(pet);
  }

  create(newPet: NewPet): Pet {
    return this.createMany([newPet])[0]!;
  }

  /** Adds the pets with one save; if the save fails, nothing is added. */
  createMany(newPets: readonly NewPet[]): Pet[] {
    const lastId = this.nextId + BigInt(newPets.length) - 1n;
    if (lastId > INT64_MAX) throw new IdsExhaustedError();
    const created = newPets.map((newPet, index) =>
      copyPet({ ...newPet, id: this.nextId + BigInt(index) }),
    );
    const nextId = lastId + 1n;
    this.persist(() => ({ nextId, pets: [...this.petsById.values(), ...created] }));
    for (const pet of created) this.petsById.set(pet.id, pet);
    this.nextId = nextId;
    return created.map(copyPet);
  }

  snapshot(): StoreSnapshot {
    return { nextId: this.nextId, pets: [...this.petsById.values()].map(copyPet) };
  }
}
