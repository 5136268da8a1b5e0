import { addAbortSignal, type Readable } from 'node:stream';
import type { DeprecationHeaders } from '../../api/client.js';
import { GET_PET_REMOVAL_DATE, type Pet } from '../../api/contract.js';
import { defaultConcurrency } from '../../batch/concurrency.js';
import { UsageError } from '../../core/errors.js';
import { escapeForTerminal } from '../../core/terminal-text.js';
import { parseId } from '../shared/arguments.js';
import type { CommandModule } from '../shared/command.js';
import { warnDeprecated } from '../shared/deprecated.js';
import { examples } from '../shared/help-text.js';
import type { Session } from '../shared/session.js';
import { getPets, readIds, type GetOutcome, type IdInput } from './get-many.js';

export const getCommand: CommandModule = {
  define(program, getSession) {
    program
      .command('get')
      .description(`show pets by id (deprecated API operation, removed ${GET_PET_REMOVAL_DATE})`)
      .helpGroup('Deprecated commands:')
      .argument('<petId...>', 'one or more ids, or - to read one id per line from stdin')
      .addHelpText(
        'before',
        examples(
          'pets get 42',
          'pets get 42 43 44 --json',
          "pets list --json | jq '.[].id' | pets get - --json",
        ),
      )
      .action(async (args: string[]) => {
        const session = getSession();
        const fromStdin = args.length === 1 && args[0] === '-';
        const ids = fromStdin ? [] : parseIdArguments(args);
        await session.terminal.environmentLine(await session.target());
        let deprecation: DeprecationHeaders = {};
        try {
          if (ids.length === 1 && ids[0] !== undefined) {
            deprecation = await getOne(session, ids[0]);
          } else {
            // Ids read from stdin stop at the run's stop (a signal), as an idle stdin never ends.
            const stdin = () => addAbortSignal(session.signal, session.terminal.stdin as Readable);
            const inputs = fromStdin ? readIds(stdin()) : listed(ids);
            deprecation = await getMany(session, inputs);
          }
        } finally {
          await warnDeprecated(session, deprecation);
        }
      });
  },
};

function parseIdArguments(args: string[]): bigint[] {
  return args.map((arg) => {
    try {
      return parseId(arg);
    } catch (error) {
      throw new UsageError(`petId "${arg}" is invalid. ${(error as Error).message}`);
    }
  });
}

async function* listed(ids: bigint[]): AsyncIterable<IdInput> {
  for (const [index, id] of ids.entries()) yield { line: index + 1, id };
}

/** One id: the pet itself, or the 404 as the command's error. */
async function getOne(session: Session, id: bigint): Promise<DeprecationHeaders> {
  const { api } = await session.api();
  const { pet, deprecation } = await api.getPet(id, { signal: session.signal });
  await session.terminal.printPet(pet);
  return deprecation;
}

/** Several ids: NDJSON as they come with --json, else a table once all are in. */
async function getMany(
  session: Session,
  inputs: AsyncIterable<IdInput>,
): Promise<DeprecationHeaders> {
  const [{ renderBatchLine }, { api, gate }] = await Promise.all([
    import('../../output/render-json.js'),
    session.api(undefined, undefined, { batch: true }),
  ]);
  const pets: Pet[] = [];
  const { red } = await session.terminal.stderrColors();
  const report = (outcome: GetOutcome) => {
    if (session.terminal.mode === 'json') {
      session.terminal.printJsonText(renderBatchLine(outcome));
    } else if ('pet' in outcome) {
      pets.push(outcome.pet);
    } else if (outcome.error.code !== 'not_sent' && !('refused' in outcome)) {
      // Not fetched, or refused by the answer the run stopped on: its error says it once.
      const { code, message } = outcome.error;
      session.terminal.stderr.write(
        'error',
        { code, message },
        `${red('error:')} ${escapeForTerminal(message)}`,
      );
    }
  };
  const result = await getPets(
    inputs,
    { concurrency: defaultConcurrency(gate.snapshot) },
    { api, signal: session.signal, report },
  );
  if (session.terminal.mode !== 'json') await session.terminal.printPets(pets);
  if (result.stoppedBy) throw result.stoppedBy;
  // An id that is not one is a bad value, as it is on the command line: exit 2, which its
  // JSON line says too.
  if (result.invalid > 0) session.exitCode = 2;
  else if (result.missing > 0) session.exitCode = 3;
  return result.deprecation;
}
