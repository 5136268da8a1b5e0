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
import type { Prompter } from '../../terminal/prompt.js';

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

/** The flags a single add lacks: --name, --category-id, both, or none. */
function missingFlags(flags: AddFlags): string[] {
  return [
    flags.name === undefined ? '--name' : undefined,
    flags.categoryId === undefined ? '--category-id' : undefined,
  ].filter((flag) => flag !== undefined);
}

/**
 * Asks for each field not given, each answer checked as its flag's value is; the status (which
 * may be left out) only along with another. Given both --name and --category-id, it asks nothing.
 */
export async function askPet(
  prompts: Prompter,
  given: { name?: string; categoryId?: bigint; status?: PetStatus },
): Promise<{ name: string; categoryId: bigint; status?: PetStatus }> {
  if (given.name !== undefined && given.categoryId !== undefined) {
    return { name: given.name, categoryId: given.categoryId, status: given.status };
  }
  const name =
    given.name ?? parseName(await prompts.text({ message: 'Name', check: refusal(parseName) }));
  const categoryId =
    given.categoryId ??
    parseId(await prompts.text({ message: 'Category id', check: refusal(parseId) }));
  const status: PetStatus | 'none' =
    given.status ??
    (await prompts.choice<PetStatus | 'none'>({
      message: 'Status',
      choices: [...PET_STATUSES, 'none' as const].map((value) => ({ value, name: value })),
      // Enter alone: no status, as without --status.
      default: 'none',
    }));
  return { name, categoryId, ...(status !== 'none' ? { status } : {}) };
}

/** Why `parse` refuses an answer (its flag's message), or undefined when it takes it. */
function refusal(parse: (text: string) => unknown): (answer: string) => string | undefined {
  return (answer) => {
    try {
      parse(answer);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
}

export const addCommand: CommandModule = {
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
      .option(
        '--dry-run',
        'read and check every record, say what the journal holds and how long the quota makes it take; send no create',
      )
      .addHelpText(
        'before',
        examples(
          'pets add --name Rex --category-id 3',
          'pets add --name Tom --category-id 1 --status pending --json',
          'pets add --file pets.csv --dry-run',
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
        const missing = missingFlags(options);
        // Where nobody can answer, what is missing is said before anything else is looked at.
        if (missing.length > 0 && !session.canPrompt) {
          throw new UsageError(`add is missing ${missing.join(' and ')} (or give --file)`, {
            hint: 'Example: pets add --name Rex --category-id 3',
          });
        }
        const target = await session.target();
        // Before the first question, the profile and host are named, so that nobody types a
        // pet into the wrong environment: by the badge on a protected profile.
        await session.protectedBadge(target);
        if (missing.length > 0 && !target.protected) {
          session.notice(
            `Adding a pet on profile "${target.profile}" (${new URL(target.baseUrl).host}).`,
          );
        }
        const { name, categoryId, status } = await askPet(session.prompts, options);
        const api = await session.api(target);
        const pet = await addPet(
          { name, categoryId, ...(status ? { status } : {}) },
          { api, signal: session.deps.signal },
        );
        await session.printPet(pet);
      });
  },
};
