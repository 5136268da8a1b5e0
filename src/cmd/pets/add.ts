import type { PetsApi } from '../../api/client.js';
import type { NewPet, Pet } from '../../api/contract.js';
import { withAddOutcome } from '../../api/create-outcome.js';
import { PET_STATUSES, type PetStatus } from '../../api/contract.js';
import { INPUT_FORMATS } from '../../batch/input/format.js';
import { UsageError } from '../../core/errors.js';
import type { AddFileFlags } from './add-file.js';
import {
  choiceOption,
  parseId,
  parseName,
  parsePositiveInteger,
  parseStatus,
} from '../shared/arguments.js';
import type { CommandModule } from '../shared/command.js';
import { examples } from '../shared/help-text.js';

/** add's flags: one pet's fields, or a file's (add-file.ts). */
interface AddFlags extends Partial<AddFileFlags> {
  name?: string;
  categoryId?: bigint;
  status?: PetStatus;
}

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

export const addCommand: CommandModule = {
  names: ['add'],
  callsApi: true,
  define(program, getSession) {
    program
      .command('add')
      .description('add a pet, or many from a file')
      .option('--name <name>', "the pet's name", parseName)
      .option('--category-id <int64>', "the id of the pet's category", parseId)
      .addOption(choiceOption('--status <status>', "the pet's status", PET_STATUSES, parseStatus))
      .option('--file <path|->', 'add every record of an NDJSON, JSON or CSV file (- for stdin)')
      .addOption(
        choiceOption(
          '--format <format>',
          "the file's format (default: from its extension; stdin: ndjson)",
          INPUT_FORMATS,
        ),
      )
      .option(
        '--concurrency <n>',
        'requests in flight (default: from the known rate limit)',
        parsePositiveInteger,
      )
      .option(
        '--journal <path>',
        'where results are recorded for resuming (default: <file>.pets-journal)',
      )
      .option('--retry-unknown', 'resend records whose earlier create may or may not have happened')
      .option('--yes', 'import into a protected profile without typing its name')
      .addHelpText(
        'before',
        examples(
          'pets add --name Rex --category-id 3',
          'pets add --name Tom --category-id 1 --status pending --json',
          'pets add --file pets.csv',
          'pets add --file - --format ndjson --journal import.journal < pets.ndjson',
        ),
      )
      .action(async (options: AddFlags) => {
        const session = getSession();
        if (options.file !== undefined) {
          if (
            options.name !== undefined ||
            options.categoryId !== undefined ||
            options.status !== undefined
          ) {
            throw new UsageError(
              '--file cannot be combined with --name, --category-id or --status',
            );
          }
          const { addFromFile } = await import('./add-file.js');
          await addFromFile(session, { ...options, file: options.file });
          return;
        }
        const { name, categoryId, status } = options;
        if (name === undefined || categoryId === undefined) {
          const missing = [
            name === undefined && '--name',
            categoryId === undefined && '--category-id',
          ]
            .filter(Boolean)
            .join(' and ');
          throw new UsageError(`add is missing ${missing} (or give --file)`, {
            hint: 'Example: pets add --name Rex --category-id 3',
          });
        }
        const target = await session.target();
        await session.protectedBadge(target);
        const api = await session.api(target);
        const pet = await addPet(
          { name, categoryId, ...(status ? { status } : {}) },
          { api, signal: session.deps.signal },
        );
        await session.printPet(pet);
      });
  },
};
