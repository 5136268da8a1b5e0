import type { ListQuery, PetsApi } from '../../api/client.js';
import type { Pet } from '../../api/contract.js';
import { LIST_LIMIT, PET_STATUSES, type PetStatus } from '../../api/contract.js';
import { choiceOption, parseLimit, parseStatus } from '../shared/arguments.js';
import type { CommandModule } from '../shared/command.js';
import { examples } from '../shared/help-text.js';
import type { Session } from '../shared/session.js';

export async function listPets(
  query: ListQuery,
  deps: { api: PetsApi; signal?: AbortSignal },
): Promise<Pet[]> {
  return deps.api.listPets(query, { signal: deps.signal });
}

/**
 * The API has no paging beyond --limit: a full page may hide more pets, which a person at a
 * terminal should not mistake for all of them.
 */
async function fullPageHint(session: Session, shown: number, limit: number | undefined) {
  const page = limit ?? LIST_LIMIT.default;
  if (!session.terminal.showsHints || shown === 0 || shown < page) return;
  await session.terminal.hint(
    page < LIST_LIMIT.max
      ? `Showing ${shown}, a full page: more may exist. --limit goes up to ${LIST_LIMIT.max}.`
      : `Showing ${shown}, the most one request returns: more may exist. Narrow with --status.`,
    { code: 'full_page', shown },
  );
}

export const listCommand: CommandModule = {
  define(program, getSession) {
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
        const session = getSession();
        const target = await session.target();
        await session.terminal.environmentLine(target);
        const { api } = await session.api(target);
        const pets = await listPets(options, { api, signal: session.signal });
        await session.terminal.printPets(pets);
        // With --json, the array says it all; a notice or a hint would be noise for the script.
        if (session.terminal.mode === 'json') return;
        if (pets.length === 0) session.terminal.notice('No pets found.', { code: 'no_pets' });
        await fullPageHint(session, pets.length, options.limit);
      });
  },
};
