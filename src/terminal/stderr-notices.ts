import { escapeForTerminal } from '../core/terminal-text.js';
import { stringifyJson } from '../json/int64-json.js';
import type { Output } from './io.js';

/**
 * What a line on stderr is. Under --json it is the line's one key, as in
 * `{"warning":{…}}`; `pets help json` lists them, and test/e2e/json-output.test.ts holds every command to them.
 */
export type NoticeKind = 'error' | 'warning' | 'notice' | 'hint' | 'summary' | 'trace';

/** A message for stderr: what a script matches on (`code`), what a person reads, and facts. */
export interface Notice {
  /** Stable and snake_case: scripts match on it, never on the message. */
  code: string;
  /** The sentence a person reads, said once. */
  message: string;
  /** Further facts as JSON fields; shown in text only as `message` says them. */
  [field: string]: unknown;
}

/** A line redrawn in place at the foot of stderr (the progress line). */
export interface LiveLine {
  clear(): void;
  redraw(): void;
}

/**
 * The one way anything reaches stderr: each message as the lines a person reads, or under
 * --json as exactly one JSON object per line, so that a script can parse every line.
 */
export class StderrNotices {
  /** Messages clear it before they are written, and draw it again below them. */
  private live?: LiveLine;

  constructor(
    private readonly stderr: Output,
    /** Whether the run writes JSON (--json or --jq). */
    readonly json: boolean,
  ) {}

  /**
   * Writes `notice` as `{"<kind>":{…}}`, or for a person as `text` (already styled, one line
   * or several), by default the message escaped for the terminal.
   */
  write(kind: NoticeKind, notice: Notice, text?: string): void {
    this.live?.clear();
    this.stderr.write(
      this.json
        ? `${stringifyJson({ [kind]: notice })}\n`
        : `${text ?? escapeForTerminal(notice.message)}\n`,
    );
    this.live?.redraw();
  }

  /** Keeps `line` below every message from now on, or none (undefined). */
  keepBelow(line: LiveLine | undefined): void {
    this.live = line;
  }
}
