// The work of list, add and get, on a client of the test's making: the end-to-end tests
// (pets.test.ts) send the same commands through the whole CLI to a sandbox.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { PetsApi } from '../../../src/api/client.js';
import type { NewPet, Pet } from '../../../src/api/contract.js';
import { addPet } from '../../../src/cmd/pets/add.js';
import { getPets, readIds, type GetOutcome, type IdInput } from '../../../src/cmd/pets/get-many.js';
import { listPets } from '../../../src/cmd/pets/list.js';
import {
  AuthError,
  NetworkError,
  NotFoundError,
  RequestFailedError,
} from '../../../src/core/errors.js';

const pet = (id: bigint, name: string): Pet => ({ id, name, categoryId: 1n });

async function* inputs(...items: IdInput[]): AsyncIterable<IdInput> {
  yield* items;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

describe('listPets', () => {
  it('asks the client for the query given, and returns its pets as they came', async () => {
    const asked: unknown[] = [];
    const api = {
      listPets: async (query: unknown) => {
        asked.push(query);
        return [pet(9007199254740993n, 'Big')];
      },
    } as unknown as PetsApi;
    const pets = await listPets({ status: 'sold', limit: 1 }, { api });
    expect(pets).toEqual([pet(9007199254740993n, 'Big')]);
    expect(asked).toEqual([{ status: 'sold', limit: 1 }]);
  });
});

describe('addPet', () => {
  const creating = (outcome: Pet | Error) =>
    ({
      createPet: async (asked: NewPet) => {
        if (outcome instanceof Error) throw outcome;
        return { ...outcome, name: asked.name };
      },
    }) as unknown as PetsApi;
  const rex: NewPet = { name: 'Rex', categoryId: 9223372036854775807n };

  it('returns the pet the server created', async () => {
    expect(await addPet(rex, { api: creating(pet(1n, '')), profile: 'staging' })).toEqual(
      pet(1n, 'Rex'),
    );
  });

  it('says a refused create, or one that never left, did not create the pet', async () => {
    const refused = new RequestFailedError('invalid_body', 'name is required', { status: 400 });
    await expect(addPet(rex, { api: creating(refused), profile: 'staging' })).rejects.toThrow(
      'name is required; the pet was not created',
    );
    const never = new NetworkError('connection_refused', 'could not connect', {
      requestMayHaveArrived: false,
    });
    await expect(addPet(rex, { api: creating(never), profile: 'staging' })).rejects.toThrow(
      'could not connect; nothing reached the server: the pet was not created',
    );
  });
});

describe('readIds', () => {
  it.each([
    ['\\n', (ids: string[]) => ids.join('\n')],
    ['\\r\\n', (ids: string[]) => `${ids.join('\r\n')}\r\n`],
    ['a lone \\r', (ids: string[]) => ids.join('\r')],
  ])('ends an id at %s, numbering the lines', async (_ending, join) => {
    const stdin = Readable.from([join(['9007199254740993', 'abc', '12'])]);
    expect(await all(readIds(stdin))).toEqual([
      { line: 1, id: 9007199254740993n },
      { line: 2, problem: 'not an int64 pet id' },
      { line: 3, id: 12n },
    ]);
  });

  it('skips blank lines, still counting them', async () => {
    const stdin = Readable.from(['\n 7 \n\n1.5\n']);
    expect(await all(readIds(stdin))).toEqual([
      { line: 2, id: 7n },
      { line: 4, problem: 'not an int64 pet id' },
    ]);
  });

  it('reads a quote as part of its line only: the ids after it are each read', async () => {
    const stdin = Readable.from(['1\n"2\n3\r"4"\n']);
    expect(await all(readIds(stdin))).toEqual([
      { line: 1, id: 1n },
      { line: 2, problem: 'not an int64 pet id' },
      { line: 3, id: 3n },
      { line: 4, problem: 'not an int64 pet id' },
    ]);
  });
});

describe('getPets', () => {
  /** A client that has the pets of `known`; any other id is a 404. */
  const having = (...known: Pet[]) =>
    ({
      getPet: async (id: bigint, options: { left?: () => void }) => {
        options.left?.();
        const found = known.find((one) => one.id === id);
        if (!found) {
          throw new NotFoundError('not_found', `no pet with id ${id} (404)`, { status: 404 });
        }
        return { pet: found, deprecation: { sunset: '2030-12-05' } };
      },
    }) as unknown as PetsApi;

  it('reports a line per id in order: found, missing (404) and invalid, and counts each', async () => {
    const reported: GetOutcome[] = [];
    const result = await getPets(
      inputs({ line: 1, id: 1n }, { line: 2, id: 424242n }, { line: 3, problem: 'not an id' }),
      { concurrency: 1 },
      { api: having(pet(1n, 'First')), report: (outcome) => reported.push(outcome) },
    );
    expect(reported).toMatchObject([
      { line: 1, pet: { name: 'First' } },
      { line: 2, error: { status: 404, exitCode: 3 } },
      { line: 3, error: { code: 'invalid_id', exitCode: 2 } },
    ]);
    expect(result).toMatchObject({ found: 1, missing: 1, invalid: 1, notSent: 0, refused: 0 });
    expect(result.deprecation).toEqual({ sunset: '2030-12-05' });
    expect(result.stoppedBy).toBeUndefined();
  });

  it('stops at a failure every id would meet: that id was sent and refused, the rest not sent', async () => {
    const refusal = new AuthError('invalid_key', 'refused', { status: 401 });
    const api = {
      getPet: async (_id: bigint, options: { left?: () => void }) => {
        options.left?.();
        throw refusal;
      },
    } as unknown as PetsApi;
    const reported: GetOutcome[] = [];
    const result = await getPets(
      inputs({ line: 1, id: 1n }, { line: 2, id: 2n }),
      { concurrency: 1 },
      { api, report: (outcome) => reported.push(outcome) },
    );
    expect(result).toMatchObject({ found: 0, refused: 1, notSent: 1, stoppedBy: refusal });
    expect(reported).toMatchObject([
      { line: 1, refused: true, error: { exitCode: 4 } },
      { line: 2, error: { code: 'not_sent' } },
    ]);
  });
});
