/** table on a terminal, tab-separated lines in a pipe, exact JSON with --json. */
export type OutputMode = 'table' | 'tsv' | 'json';

/** Whether stdout is JSON: --json, or --jq, which filters JSON and so implies it. */
export function jsonOutput(options: { json?: boolean; jq?: string }): boolean {
  return options.json === true || options.jq !== undefined;
}

export function chooseMode(json: boolean, stdoutIsTTY: boolean): OutputMode {
  if (json) return 'json';
  return stdoutIsTTY ? 'table' : 'tsv';
}
