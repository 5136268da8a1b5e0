import type { Command } from 'commander';
import type { SessionSource } from './session.js';

/**
 * The commands whose stdout is JSON under --json, so the ones --jq can filter. `pets help json`
 * gives each one's shape (test/cmd/help/json-topic.test.ts checks that it does).
 */
export const JSON_COMMANDS: readonly string[] = [
  'list',
  'get',
  'add',
  'quota',
  'api',
  'auth status',
  'profile list',
  'profile show',
  'sandbox',
];

/** `pets profile show` for the command commander is about to run: its words after `pets`. */
export function commandName(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/**
 * --jq is checked and compiled before the command's action runs, so a bad expression, or one
 * given to a command without JSON output, is refused with exit 2 before anything is sent;
 * after the action, the run ends with the filter's failure if it had one.
 */
export function checkJqBeforeActions(program: Command, getSession: SessionSource): void {
  program.hook('preAction', async () => {
    const session = getSession();
    // Given to a command without JSON output, it was refused before this (global-scope.ts).
    if (session.globals.jq === undefined) return;
    await session.terminal.loadJq(session.signal);
  });
  program.hook('postAction', () => getSession().terminal.finish());
}
