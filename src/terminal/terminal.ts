import type { Env } from '../config/paths.js';
import type { ApiTarget } from '../config/resolve-target.js';
import type { Pet } from '../api/contract.js';
import { colorEnabled, palette, type Palette } from '../output/color.js';
import type { JqFilter, JqHaltError, JqRuntimeError } from '../output/jq.js';
import { chooseMode, type OutputMode } from '../output/mode.js';
import type { Column } from '../output/render.js';
import { escapeForTerminal } from '../core/terminal-text.js';
import type { Secrets } from '../core/redact.js';
import type { Io, Output } from './io.js';
import type { Clock } from '../core/clock.js';
import type { Waiter } from '../ratelimit/gate.js';
import type { LineTerminal } from './live-frame.js';
import type { ProgressLine } from './progress.js';
import type { Prompter } from './prompt.js';
import { StderrNotices, type Notice, type NoticeKind } from './stderr-notices.js';

type TextMode = Exclude<OutputMode, 'json'>;

/** A notice's facts besides its message: its code (default: its kind), and JSON fields. */
export type NoticeFields = Partial<Notice> & { code?: string };

/** What the global options say of the terminal. */
export interface TerminalOptions {
  json: boolean;
  /** A jq filter for the JSON output; it implies --json. */
  jq?: string;
  color: boolean;
  quiet: boolean;
  /** false with --no-input: never prompt. */
  input: boolean;
}

/**
 * `io` with stdout and stderr passed through the redaction errors use, so that a key a
 * server echoes (in a record's error, a pet's name, a header in the trace) never shows.
 * The rest of `io` is reached through it: stdin is a getter that must stay lazy.
 */
function redactingIo(io: Io, secrets: Secrets): Io {
  const clean = (output: Output): Output => ({
    write: (text: string) => output.write(secrets.redact(text)),
  });
  return Object.create(io, {
    stdout: { value: clean(io.stdout) },
    stderr: { value: clean(io.stderr) },
  }) as Io;
}

/**
 * The terminal door: the run's streams (every secret redacted), whether each is a terminal,
 * its width and colours, whether a person can be asked, and everything printed: output in
 * the run's mode (or through --jq), notices on stderr, lines redrawn in place. Nothing else
 * in cmd/ writes to a stream. Tests give it their own io (test/helpers/test-terminal.ts).
 */
export class Terminal {
  /** The streams, stdout and stderr redacting every secret of the run. */
  private readonly io: Io;
  /** Everything for stderr goes through here: text for a person, JSON lines under --json. */
  readonly stderr: StderrNotices;
  /** The compiled --jq filter, once `loadJq` has run. */
  private jq?: JqFilter;
  /** The first failure of the --jq filter: the run goes on printing, then exits with it. */
  private jqFailure?: JqRuntimeError | JqHaltError;
  /** The run's stop (Ctrl-C, SIGTERM), which --jq checks before its filter holds the thread. */
  private stop?: AbortSignal;

  private readonly env: Env;
  /** The person's side of questions (deps.prompts); `prompts` styles them for this run. */
  private readonly person: Prompter;

  /** Made of the run's deps: its streams, its environment, and who answers questions. */
  constructor(
    { io, env, prompts }: { io: Io; env: Env; prompts: Prompter },
    readonly options: TerminalOptions,
    secrets: Secrets,
  ) {
    this.io = redactingIo(io, secrets);
    this.env = env;
    this.person = prompts;
    this.stderr = new StderrNotices(this.io.stderr, options.json);
  }

  /**
   * Compiles --jq, before anything is sent: an expression that does not compile is exit 2.
   * `stop`: the run's stop, see printAnswer.
   */
  async loadJq(stop?: AbortSignal): Promise<void> {
    this.stop = stop;
    if (this.options.jq === undefined || this.jq) return;
    const { compileJq } = await import('../output/jq.js');
    const terminal = this.io.stdoutIsTTY;
    this.jq = await compileJq(this.options.jq, { pretty: terminal, terminal });
  }

  /** Ends the run with the --jq filter's failure, if it had one. */
  finish(): void {
    if (this.jqFailure) throw this.jqFailure;
  }

  /** Stdin, for what a command reads from a pipe (ids, records, a key): made on first use. */
  get stdin(): NodeJS.ReadableStream {
    return this.io.stdin;
  }

  get stdinIsTTY(): boolean {
    return this.io.stdinIsTTY;
  }

  get stdoutIsTTY(): boolean {
    return this.io.stdoutIsTTY;
  }

  get mode(): OutputMode {
    return chooseMode(this.options.json, this.io.stdoutIsTTY);
  }

  stdoutColors(): Promise<Palette> {
    return palette(colorEnabled(this.io.stdoutIsTTY, this.env, this.options.color));
  }

  stderrColors(): Promise<Palette> {
    return palette(colorEnabled(this.io.stderrIsTTY, this.env, this.options.color));
  }

  /** How wide a table may be: the terminal's width. A pipe gets every value whole. */
  get tableWidth(): number | undefined {
    return this.mode === 'table' ? this.io.stdoutColumns : undefined;
  }

  /**
   * Countdowns and progress lines: only for a person at a terminal who did not ask for quiet.
   * Not with --json: a line redrawn in place is not a JSON object.
   */
  get showsProgress(): boolean {
    return this.io.stderrIsTTY && !this.options.quiet && !this.options.json;
  }

  /**
   * Stderr's terminal, for a line redrawn in place (the progress line, a countdown): its width
   * now, measured as tables are (the one width function), and its resizes.
   */
  async stderrTerminal(): Promise<LineTerminal> {
    const { stringWidth } = await import('../output/table.js');
    const io = this.io;
    return {
      columns: () => io.stderrColumns,
      width: stringWidth,
      onResize: io.onStderrResize?.bind(io),
    };
  }

  /** The progress line at the foot of stderr, where progress is shown (showsProgress). */
  async progressLine(clock: Clock): Promise<ProgressLine | undefined> {
    if (!this.showsProgress) return undefined;
    const { ProgressLine } = await import('./progress.js');
    return new ProgressLine(this.io.stderr, clock, await this.stderrTerminal());
  }

  /** How the rate gate's waits are spent: a countdown on stderr where progress is shown. */
  async countdown(clock: Clock): Promise<Waiter> {
    const { countdownWaiter } = await import('./countdown.js');
    return countdownWaiter(clock, this.io.stderr, this.showsProgress, () => this.stderrTerminal());
  }

  /**
   * Hints about what is shown (which environment, a full page): for a person reading the
   * output at a terminal, so neither stream may be a pipe, and not with --quiet.
   */
  get showsHints(): boolean {
    return this.io.stdoutIsTTY && this.io.stderrIsTTY && !this.options.quiet;
  }

  /**
   * Why no question may be asked in this run, or undefined when one may: a person must be able
   * to read it (stderr is a terminal) and answer it (so is stdin), and nobody said not to
   * (--no-input, CI). Under --json nothing asks either: a question drawn on stderr is not a
   * JSON line, and --json means a program reads the output.
   */
  get whyNoPrompt(): string | undefined {
    const { io, env } = this;
    // What the user said comes first: it is the reason they will recognise.
    if (this.options.input === false) return '--no-input was given';
    if (this.options.json)
      return this.options.jq === undefined ? '--json was given' : '--jq was given';
    if (env.CI) return 'CI is set';
    if (!io.stdinIsTTY) return 'stdin is not a terminal';
    if (!io.stderrIsTTY) return 'stderr is not a terminal';
    return undefined;
  }

  /** Whether a question may be asked (see whyNoPrompt). */
  get canPrompt(): boolean {
    return this.whyNoPrompt === undefined;
  }

  /** Questions for the person at the terminal, in colour only where this run's output is. */
  get prompts(): Prompter {
    const prompts = this.person;
    const plain = !colorEnabled(this.io.stderrIsTTY, this.env, this.options.color);
    return {
      text: (question) => prompts.text({ plain, ...question }),
      select: (question) => prompts.select({ plain, ...question }),
      secret: (question) => prompts.secret(question),
    };
  }

  /**
   * The one-line warning before a change on a protected profile (a saved one may have no
   * host): with --quiet too, which quiets what is routine, and production is not.
   */
  async protectedBadge(target: { profile: string; host?: string; protected: boolean }) {
    if (!target.protected) return;
    const { host } = target;
    const colors = await this.stderrColors();
    this.stderr.write(
      'warning',
      {
        code: 'protected_profile',
        message: `PROTECTED ${target.profile}${host ? ` ${host}` : ''}`,
        profile: target.profile,
        host,
      },
      `${colors.badge(' PROTECTED ')} ${colors.bold(escapeForTerminal(target.profile))}` +
        (host ? ` ${escapeForTerminal(host)}` : ''),
    );
  }

  /**
   * On a terminal, a dim line naming the profile and host a read goes to, so that nobody
   * mistakes production's answer for staging's. Nothing in a pipe or with --quiet.
   */
  async environmentLine(target: ApiTarget): Promise<void> {
    if (!this.showsHints) return;
    await this.hint(`${target.profile} · ${target.host}`, {
      code: 'environment',
      profile: target.profile,
      host: target.host,
    });
  }

  print(text: string): void {
    this.io.stdout.write(text);
  }

  /** Pets on stdout in this run's mode: table, TSV or JSON. */
  async printPets(pets: readonly Pet[]): Promise<void> {
    if (this.mode === 'json') return this.printJson(pets);
    const { renderPets } = await import('../output/render.js');
    this.print(await renderPets(pets, this.mode, await this.stdoutColors(), this.tableWidth));
  }

  /** One pet: the object itself with --json, else a one-row table or TSV. */
  async printPet(pet: Pet): Promise<void> {
    return this.mode === 'json' ? this.printJson(pet) : this.printPets([pet]);
  }

  /** Rows as a table fitted to the terminal, or TSV; not for --json, which prints objects. */
  async printRows<T>(columns: readonly Column<T>[], rows: readonly T[]): Promise<void> {
    const { renderRows } = await import('../output/render.js');
    const mode = this.mode as TextMode;
    this.print(await renderRows(columns, rows, mode, await this.stdoutColors(), this.tableWidth));
  }

  /** Labelled values, one a line (aligned on a terminal), or TSV; not for --json. */
  async printFields(fields: ReadonlyArray<readonly [string, string]>): Promise<void> {
    const { renderFields } = await import('../output/render.js');
    this.print(renderFields(fields, this.mode as TextMode, await this.stdoutColors()));
  }

  /** `value` as exact JSON on stdout. It needs no table library, so --json loads none. */
  async printJson(value: unknown): Promise<void> {
    const { renderJson } = await import('../output/render-json.js');
    if (this.jq) await this.printAnswer(renderJson(value, false));
    else this.print(renderJson(value, this.io.stdoutIsTTY));
  }

  /**
   * The run's one answer, as printJsonText prints it; but a Ctrl-C (or SIGTERM) that came
   * before the filter starts ends the run instead. The filter holds the thread, and only the
   * signal's default action ends it: a signal that came just before, its handler not yet run,
   * was lost (9 of 30 that came 0-4 ms after the answer; 3 of 60 now), and the filter ran
   * on. Two turns of the event loop let such a signal's handler run.
   */
  async printAnswer(text: string): Promise<void> {
    if (this.jq) {
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
      this.stop?.throwIfAborted();
    }
    this.printJsonText(text);
  }

  /**
   * JSON text on stdout as it is (a batch's NDJSON line, a server's answer), or what --jq
   * makes of it, printed as jq makes it. A failing filter does not stop a batch: the batch
   * ends with its summary, then the run exits with the filter's failure.
   */
  printJsonText(text: string): void {
    if (!this.jq) return this.print(text);
    const failure = this.jq.run(text, {
      write: (results) => this.io.stdout.write(results) !== false,
      // What the filter itself asked to say: not silenced by --quiet.
      say: (kind, said) =>
        this.stderr.write(kind === 'debug' ? 'trace' : 'notice', {
          code: kind === 'debug' ? 'jq_debug' : 'jq_stderr',
          message: said,
        }),
    });
    this.jqFailure ??= failure;
  }

  /** A message for the person at the terminal; --quiet silences each of these. */
  notice(message: string, fields: NoticeFields = {}): void {
    this.say('notice', message, fields);
  }

  /** A warning, its label coloured as errors' are. */
  async warn(message: string, fields: NoticeFields = {}): Promise<void> {
    if (this.options.quiet) return; // before loading colours for nothing
    const { yellow } = await this.stderrColors();
    this.say('warning', message, fields, `${yellow('warning:')} ${escapeForTerminal(message)}`);
  }

  /** A dim aside about what is shown. */
  async hint(message: string, fields: NoticeFields = {}): Promise<void> {
    if (this.options.quiet) return;
    const { dim } = await this.stderrColors();
    this.say('hint', message, fields, dim(escapeForTerminal(message)));
  }

  /** What a run that handled many things did, counted. */
  summary(message: string, fields: NoticeFields = {}): void {
    this.say('summary', message, fields);
  }

  private say(kind: NoticeKind, message: string, fields: NoticeFields, text?: string): void {
    if (!this.options.quiet) this.stderr.write(kind, { code: kind, ...fields, message }, text);
  }
}
