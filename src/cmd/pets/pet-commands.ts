import type { Command } from 'commander';
import { LIST_LIMIT, PET_STATUSES, type PetStatus } from '../../api/contract.js';
import { INPUT_FORMATS } from '../../batch/input/format.js';
import { UsageError } from '../../core/errors.js';
import type { AddFileFlags } from './add-file.js';
import {
  choiceOption,
  parseId,
  parseLimit,
  parseName,
  parsePositiveInteger,
  parseStatus,
} from '../shared/arguments.js';
import { registerGetCommand } from './get-command.js';
import type { SessionSource } from '../root.js';
import { examples } from '../root.js';
import type { Session } from '../shared/session.js';

/** add's flags: one pet's fields, or a file's (add-file.ts). */
interface AddFlags extends Partial<AddFileFlags> {
  name?: string;
  categoryId?: bigint;
  status?: PetStatus;
}

/**
 * The API has no paging beyond --limit: a full page may hide more pets, which a person at a
 * terminal should not mistake for all of them.
 */
async function fullPageHint(run: Session, shown: number, limit: number | undefined) {
  const page = limit ?? LIST_LIMIT.default;
  if (!run.showsHints || shown === 0 || shown < page) return;
  const { dim } = await run.stderrColors();
  run.deps.io.stderr.write(
    `${dim(
      page < LIST_LIMIT.max
        ? `Showing ${shown}, a full page: more may exist. --limit goes up to ${LIST_LIMIT.max}.`
        : `Showing ${shown}, the most one request returns: more may exist. Narrow with --status.`,
    )}\n`,
  );
}

export function registerPetCommands(program: Command, session: SessionSource): void {
  registerGetCommand(program, session);
  program
    .command('list')
    .description('list pets, optionally by status')
    .option('--limit <1-100>', 'how many pets at most (server default 20)', parseLimit)
    .addOption(
      choiceOption('--status <status>', 'only pets with this status', PET_STATUSES, parseStatus),
    )
    .addHelpText(
      'before',
      examples(
        'pets list',
        'pets list --status available --limit 100',
        "pets list --json | jq -r '.[].name'",
      ),
    )
    .action(async (options: { limit?: number; status?: PetStatus }) => {
      const run = session();
      const target = await run.target();
      await run.environmentLine(target);
      const [{ listPets }, api] = await Promise.all([import('./list.js'), run.api(target)]);
      const pets = await listPets(options, { api, signal: run.deps.signal });
      await run.printPets(pets);
      // With --json, [] says it all; a notice would be noise for the script.
      if (pets.length === 0 && run.mode !== 'json') run.notice('No pets found.');
      if (run.mode !== 'json') await fullPageHint(run, pets.length, options.limit);
    });

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
      const run = session();
      if (options.file !== undefined) {
        if (
          options.name !== undefined ||
          options.categoryId !== undefined ||
          options.status !== undefined
        ) {
          throw new UsageError('--file cannot be combined with --name, --category-id or --status');
        }
        const { addFromFile } = await import('./add-file.js');
        await addFromFile(run, { ...options, file: options.file });
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
      const target = await run.target();
      await run.protectedBadge(target);
      const [{ addPet }, api] = await Promise.all([import('./add.js'), run.api(target)]);
      const pet = await addPet(
        { name, categoryId, ...(status ? { status } : {}) },
        { api, signal: run.deps.signal },
      );
      await run.printPet(pet);
    });
}
