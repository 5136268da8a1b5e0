/** pets's top-level commands, known before commander loads (program.ts registers them). */
export const COMMAND_NAMES: readonly string[] = [
  'list',
  'add',
  'get',
  'quota',
  'api',
  'profile',
  'auth',
  'sandbox',
  'completion',
  '__complete',
  'help',
];

/** pets's global options that take a value: `pets --profile quota list` is a list run. */
export const VALUED_OPTIONS: readonly string[] = ['--profile', '--timeout', '--max-wait'];

/**
 * What a run is for, as far as argv tells before commander parses it: the command named and
 * whether help is asked for, as in "list", "list-help" or "pets-help". It keys the compile
 * cache, since each kind of run compiles different functions of the same file.
 */
export function runKind(words: readonly string[]): string {
  const end = words.indexOf('--');
  const options = end === -1 ? words : words.slice(0, end);
  const command =
    options.find(
      (word, at) => COMMAND_NAMES.includes(word) && !VALUED_OPTIONS.includes(options[at - 1] ?? ''),
    ) ?? 'pets';
  const help = options.includes('--help') || options.includes('-h');
  return help ? `${command}-help` : command;
}

/** Kinds of run that call the API, and so set the flags undici's parser wants (engine.ts). */
const API_KINDS = new Set(['list', 'add', 'get', 'quota', 'api', 'auth']);

export function callsApi(kind: string): boolean {
  return API_KINDS.has(kind);
}
