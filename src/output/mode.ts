/** table on a terminal, tab-separated lines in a pipe, exact JSON with --json. */
export type OutputMode = 'table' | 'tsv' | 'json';

export function chooseMode(json: boolean, stdoutIsTTY: boolean): OutputMode {
  if (json) return 'json';
  return stdoutIsTTY ? 'table' : 'tsv';
}
