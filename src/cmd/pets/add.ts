import type { Command } from 'commander';
import type { PetsApi } from '../../api/client.js';
import type { ApiTarget } from '../../config/resolve-target.js';
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
import { refuseWithout } from '../shared/flag-rules.js';
import { examples } from '../shared/help-text.js';
import type { Session } from '../shared/session.js';
import { refusalOf, type Prompter } from '../../terminal/prompt.js';

/** The options that act only on a batch: each is refused without --file. */
const FILE_ONLY_OPTIONS = [
  'format',
  'concurrency',
  'journal',
  'retryUnknown',
  'newRun',
  'yes',
  'ignoreUnknown',
];

/** add's flags: one pet's fields, or a file's (add-file.ts). */
interface AddFlags extends Partial<AddFileFlags> {
  name?: string;
  categoryId?: bigint;
  status?: PetStatus;
}

/** Creates one pet; a failure always says whether the pet was, may have been, or was not created. */
export async function addPet(
  pet: NewPet,
  deps: { api: PetsApi; profile: string; signal?: AbortSignal },
): Promise<Pet> {
  try {
    return await deps.api.createPet(pet, { signal: deps.signal });
  } catch (error) {
    throw withAddOutcome(error, pet, deps.profile);
  }
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
    given.name ?? parseName(await prompts.text({ message: 'Name', check: refusalOf(parseName) }));
  const categoryId =
    given.categoryId ??
    parseId(await prompts.text({ message: 'Category id', check: refusalOf(parseId) }));
  const status: PetStatus | 'none' =
    given.status ??
    (await prompts.select<PetStatus | 'none'>({
      message: 'Status',
      choices: [...PET_STATUSES, 'none' as const].map((value) => ({ value, name: value })),
      // Enter alone: no status, as without --status.
      default: 'none',
    }));
  return { name, categoryId, ...(status !== 'none' ? { status } : {}) };
}

/**
 * `add --dry-run` for one pet: the request a real run would send, where to, and the profile's
 * guard, with nothing sent. The key is not shown: it goes in the Authorization header.
 */
async function printDryRun(session: Session, target: ApiTarget, pet: NewPet): Promise<void> {
  const { createPetRequest, joinUrl } = await import('../../api/client.js');
  const request = createPetRequest(pet);
  const url = joinUrl(target.baseUrl, request.path);
  if (session.terminal.mode === 'json') {
    await session.terminal.printJson({
      dryRun: true,
      method: request.method,
      url,
      body: request.body,
      profile: target.profile,
      host: target.host,
      protected: target.protected,
      sent: false,
    });
    return;
  }
  const { stringifyJson } = await import('../../json/int64-json.js');
  await session.terminal.printFields([
    ['method', request.method],
    ['url', url],
    ['body', stringifyJson(request.body)],
    ['profile', target.profile],
    ['host', target.host],
    ['protected', target.protected ? 'yes (a real run shows the badge and asks nothing)' : 'no'],
    ['sent', 'nothing (dry run)'],
  ]);
}

/** One pet, from its flags, and at a terminal from questions for those missing. */
async function addOne(session: Session, options: AddFlags): Promise<void> {
  const missing = [
    options.name === undefined ? '--name' : undefined,
    options.categoryId === undefined ? '--category-id' : undefined,
  ].filter((flag) => flag !== undefined);
  // Where nobody can answer, what is missing is said before anything else is looked at.
  if (missing.length > 0 && !session.terminal.canPrompt) {
    throw new UsageError(`add is missing ${missing.join(' and ')} (or give --file)`, {
      hint: 'Example: pets add --name Rex --category-id 3',
    });
  }
  const target = await session.target();
  // Before the first question, the profile and host are named, so that nobody types a
  // pet into the wrong environment: by the badge on a protected profile, else by a line.
  await session.terminal.protectedBadge(target);
  if (missing.length > 0 && !target.protected) {
    session.terminal.notice(`Adding a pet on profile "${target.profile}" (${target.host}).`);
  } else if (!target.protected) await session.terminal.environmentLine(target);
  const { name, categoryId, status } = await askPet(session.terminal.prompts, options);
  const newPet: NewPet = { name, categoryId, ...(status ? { status } : {}) };
  if (options.dryRun) return printDryRun(session, target, newPet);
  const { api } = await session.api(target);
  const pet = await addPet(newPet, { api, profile: target.profile, signal: session.signal });
  await session.terminal.printPet(pet);
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
          "the file's format (default: from its extension; for stdin or another name, from the first non-blank byte: [ json, { ndjson, else csv)",
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
      .option(
        '--new-run',
        "send records that another run's journal already holds (that run had a copy or an earlier name of this file)",
      )
      .option('--yes', 'import into a protected profile without typing its name')
      .option(
        '--ignore-unknown',
        'leave out columns and keys a pet does not have (default: refused, exit 2, naming each)',
      )
      .option(
        '--dry-run',
        'send nothing: show the request one pet would make, or with --file check every record and say what the journal holds and how long the quota makes it take',
      )
      .addHelpText(
        'before',
        examples(
          'pets add --name Rex --category-id 3',
          'pets add --name Tom --category-id 1 --status pending --json',
          'pets --profile production add --name Rex --category-id 3 --dry-run',
          'pets add --file pets.csv --dry-run',
          'pets add --file pets.csv',
          'pets add --file - --format ndjson --journal import.journal < pets.ndjson',
        ),
      )
      .addHelpText(
        'after',
        '\n--format, --concurrency, --journal, --retry-unknown, --new-run, --yes and --ignore-unknown\n' +
          'act only with --file: without it they are refused (exit 2, naming each), nothing sent,\n' +
          'never ignored.\n' +
          'On a protected profile, one pet shows the badge and asks nothing; a batch asks for the\n' +
          "profile's name at a terminal, or needs --yes.\n",
      )
      .action(async (options: AddFlags, command: Command) => {
        const session = getSession();
        // A batch's flags do nothing to one pet: given without --file, they are refused
        // rather than ignored, before anything is asked or sent.
        refuseWithout(
          command,
          'file',
          FILE_ONLY_OPTIONS,
          'Without --file, add sends one pet, from --name, --category-id and --status.',
        );
        if (options.file !== undefined) {
          if ([options.name, options.categoryId, options.status].some((v) => v !== undefined)) {
            throw new UsageError(
              '--file cannot be combined with --name, --category-id or --status',
            );
          }
          const { addFromFile } = await import('./add-file.js');
          return addFromFile(session, { ...options, file: options.file });
        }
        await addOne(session, options);
      });
  },
};
