import type { Command } from 'commander';
import { GET_PET_REMOVAL_DATE, type PetStatus } from '../api/contract.js';
import type { DeprecationHeaders } from '../api/client.js';
import type { GetResult } from '../commands/get.js';
import { UsageError } from '../errors.js';
import { parseId, parseLimit, parseName, parseStatus } from './arguments.js';
import type { SessionSource } from './program.js';
import { examples } from './program.js';
import { readIds } from './read-input.js';
import type { Session } from './session.js';

export function registerPetCommands(program: Command, session: SessionSource): void {
  program
    .command('list')
    .description('list pets, optionally by status')
    .option('--limit <1-100>', 'how many pets at most (server default 20)', parseLimit)
    .option(
      '--status <status>',
      'only pets with this status: available, pending or sold',
      parseStatus,
    )
    .addHelpText(
      'after',
      examples(
        'pets list',
        'pets list --status available --limit 100',
        "pets list --json | jq -r '.[].name'",
      ),
    )
    .action(async (options: { limit?: number; status?: PetStatus }) => {
      const run = session();
      const [{ listPets }, api] = await Promise.all([import('../commands/list.js'), run.api()]);
      const pets = await listPets(options, { api, signal: run.deps.signal });
      const { renderPets } = await import('../output/render.js');
      run.print(renderPets(pets, run.mode, run.stdoutColors, run.deps.io.stdoutIsTTY));
      if (pets.length === 0) run.notice('No pets found.');
    });

  program
    .command('add')
    .description('add a pet')
    .requiredOption('--name <name>', "the pet's name", parseName)
    .requiredOption('--category-id <int64>', "the id of the pet's category", parseId)
    .option('--status <status>', 'available, pending or sold', parseStatus)
    .addHelpText(
      'after',
      examples(
        'pets add --name Rex --category-id 3',
        'pets add --name Tom --category-id 1 --status pending --json',
      ),
    )
    .action(async (options: { name: string; categoryId: bigint; status?: PetStatus }) => {
      const run = session();
      const [{ addPet }, api] = await Promise.all([import('../commands/add.js'), run.api()]);
      const pet = await addPet(options, { api, signal: run.deps.signal });
      const { renderPet } = await import('../output/render.js');
      run.print(renderPet(pet, run.mode, run.stdoutColors, run.deps.io.stdoutIsTTY));
    });

  program
    .command('get')
    .description(`show pets by id (deprecated API operation, removed ${GET_PET_REMOVAL_DATE})`)
    .argument('<petId...>', 'one or more ids, or - to read one id per line from stdin')
    .addHelpText(
      'after',
      examples(
        'pets get 42',
        'pets get 42 43 44 --json',
        "pets list --json | jq '.[].id' | pets get -",
      ),
    )
    .action(async (args: string[]) => {
      const run = session();
      const ids =
        args.length === 1 && args[0] === '-'
          ? await readIds(run.deps.io.stdin)
          : parseIdArguments(args);
      let deprecation: DeprecationHeaders = {};
      try {
        const [{ getPets }, api] = await Promise.all([import('../commands/get.js'), run.api()]);
        const result = await getPets(ids, { api, signal: run.deps.signal });
        deprecation = result.deprecation;
        await printGetResult(run, result, ids.length === 1);
      } finally {
        warnDeprecated(run, deprecation);
      }
    });
}

function parseIdArguments(args: string[]): bigint[] {
  return args.map((arg) => {
    try {
      return parseId(arg);
    } catch (error) {
      throw new UsageError(`petId "${arg}" is invalid. ${(error as Error).message}`);
    }
  });
}

async function printGetResult(run: Session, result: GetResult, single: boolean): Promise<void> {
  const { renderPet, renderPets } = await import('../output/render.js');
  const { stringifyJson } = await import('../json/int64-json.js');
  const { outcomes } = result;
  const first = outcomes[0];
  if (single && first) {
    if ('error' in first) throw first.error;
    run.print(renderPet(first.pet, run.mode, run.stdoutColors, run.deps.io.stdoutIsTTY));
    return;
  }
  if (run.mode === 'json') {
    for (const outcome of outcomes) {
      const line =
        'pet' in outcome
          ? { line: outcome.line, pet: outcome.pet }
          : { line: outcome.line, error: errorJson(outcome.error) };
      run.print(`${stringifyJson(line)}\n`);
    }
  } else {
    const pets = outcomes.flatMap((outcome) => ('pet' in outcome ? [outcome.pet] : []));
    run.print(renderPets(pets, run.mode, run.stdoutColors, run.deps.io.stdoutIsTTY));
    for (const outcome of outcomes) {
      if ('error' in outcome)
        run.deps.io.stderr.write(`error: no pet with id ${outcome.id} (404)\n`);
    }
  }
  if (outcomes.some((outcome) => 'error' in outcome)) run.exitCode = 3;
}

function errorJson(error: { code: string; message: string; status?: number; exitCode: number }) {
  return {
    code: error.code,
    message: error.message,
    status: error.status ?? null,
    exitCode: error.exitCode,
  };
}

function warnDeprecated(run: Session, headers: DeprecationHeaders): void {
  if (run.deps.env.PETS_NO_DEPRECATION_WARNING === '1') return;
  const said = Object.entries(headers)
    .map(([name, value]) => `${name[0]?.toUpperCase()}${name.slice(1)}: ${value}`)
    .join('; ');
  run.notice(
    `warning: \`pets get\` uses GET /pets/{petId}, which is deprecated and will be removed on ` +
      `${GET_PET_REMOVAL_DATE}; use \`pets list --status <status>\` instead.` +
      (said ? ` The server says: ${said}.` : ''),
  );
}
