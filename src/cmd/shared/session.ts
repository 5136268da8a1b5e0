import { hostOf } from '../../config/base-url.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import type { Pet } from '../../api/contract.js';
import type { ConfigStore } from '../../config/store.js';
import type { Waiter } from '../../ratelimit/gate.js';
import { colorEnabled, palette, type Palette } from '../../output/color.js';
import { chooseMode, jsonOutput, type OutputMode } from '../../output/mode.js';
import { escapeForTerminal } from '../../core/terminal-text.js';
import type { Secrets } from '../../core/redact.js';
import type { Io, Output } from '../../terminal/io.js';
import type { LineTerminal } from '../../terminal/live-frame.js';
import type { Prompter } from '../../terminal/prompt.js';
import { StderrNotices, type Notice } from '../../terminal/stderr-notices.js';
import type { Deps, HttpSettings, KeyApi } from './deps.js';
import type { JqFilter, JqHaltError, JqRuntimeError } from '../../output/jq.js';

/** A notice's facts besides its message: its code (default: its kind), and JSON fields. */
export type NoticeFields = Partial<Notice> & { code?: string };

/** The global options, as commander parsed them. */
export interface GlobalOptions {
  profile?: string;
  json: boolean;
  /** A jq filter for the JSON output; it implies --json. */
  jq?: string;
  color: boolean;
  quiet: boolean;
  timeout: number;
  /** --max-wait, when given: without it, the run's kind sets its waits (wait-limits.ts). */
  maxWait?: number;
  debug: boolean;
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

/** One run of pets: its deps, its global options, what it has learned and how it will exit. */
export class Session {
  exitCode = 0;
  /** A closed stdout stops the run as an interrupt does, instead of ending it quietly. */
  stopsOnClosedOutput = false;
  /** Every secret this run has handled, so that no message can ever print one. */
  readonly secrets: Secrets;

  /** The run's deps, its stdout and stderr redacting every key in `secrets`. */
  readonly deps: Deps;
  /** Everything for stderr goes through here: text for a person, JSON lines under --json. */
  readonly stderr: StderrNotices;
  /** The global options; --jq sets json too. */
  readonly globals: GlobalOptions;
  /** The compiled --jq filter, once `loadJq` has run. */
  private jq?: JqFilter;
  /** The first failure of the --jq filter: the run goes on printing, then exits with it. */
  private jqFailure?: JqRuntimeError | JqHaltError;

  constructor(deps: Deps, globals: GlobalOptions) {
    this.secrets = deps.secrets.add(deps.env.PETS_API_KEY);
    this.deps = { ...deps, io: redactingIo(deps.io, this.secrets) };
    this.globals = { ...globals, json: jsonOutput(globals) };
    this.stderr = new StderrNotices(this.deps.io.stderr, this.globals.json);
  }

  /** Compiles --jq, before anything is sent: an expression that does not compile is exit 2. */
  async loadJq(): Promise<void> {
    if (this.globals.jq === undefined || this.jq) return;
    const { compileJq } = await import('../../output/jq.js');
    const terminal = this.deps.io.stdoutIsTTY;
    this.jq = await compileJq(this.globals.jq, { pretty: terminal, terminal });
  }

  /** Ends the run with the --jq filter's failure, if it had one. */
  finish(): void {
    if (this.jqFailure) throw this.jqFailure;
  }

  get mode(): OutputMode {
    return chooseMode(this.globals.json, this.deps.io.stdoutIsTTY);
  }

  stdoutColors(): Promise<Palette> {
    return palette(colorEnabled(this.deps.io.stdoutIsTTY, this.deps.env, this.globals.color));
  }

  stderrColors(): Promise<Palette> {
    return palette(colorEnabled(this.deps.io.stderrIsTTY, this.deps.env, this.globals.color));
  }

  /** How wide a table may be: the terminal's width. A pipe gets every value whole. */
  get tableWidth(): number | undefined {
    return this.mode === 'table' ? this.deps.io.stdoutColumns : undefined;
  }

  /**
   * Countdowns and progress lines: only for a person at a terminal who did not ask for quiet.
   * Not with --json: a line redrawn in place is not a JSON object.
   */
  get showsProgress(): boolean {
    return this.deps.io.stderrIsTTY && !this.globals.quiet && !this.globals.json;
  }

  /**
   * Stderr's terminal, for a line redrawn in place (the progress line, a countdown): its width
   * now, measured as tables are (the one width function), and its resizes.
   */
  async stderrTerminal(): Promise<LineTerminal> {
    const { stringWidth } = await import('../../output/table.js');
    const io = this.deps.io;
    return {
      columns: () => io.stderrColumns,
      width: stringWidth,
      onResize: io.onStderrResize?.bind(io),
    };
  }

  /**
   * Hints about what is shown (which environment, a full page): for a person reading the
   * output at a terminal, so neither stream may be a pipe, and not with --quiet.
   */
  get showsHints(): boolean {
    return this.deps.io.stdoutIsTTY && this.deps.io.stderrIsTTY && !this.globals.quiet;
  }

  /**
   * Why no question may be asked in this run, or undefined when one may: a person must be able
   * to read it (stderr is a terminal) and answer it (so is stdin), and nobody said not to
   * (--no-input, CI). Under --json nothing asks either: a question drawn on stderr is not a
   * JSON line, and --json means a program reads the output.
   */
  get whyNoPrompt(): string | undefined {
    const { io, env } = this.deps;
    // What the user said comes first: it is the reason they will recognise.
    if (this.globals.input === false) return '--no-input was given';
    if (this.globals.json)
      return this.globals.jq === undefined ? '--json was given' : '--jq was given';
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
    const { prompts, io, env } = this.deps;
    const plain = !colorEnabled(io.stderrIsTTY, env, this.globals.color);
    return {
      text: (question) => prompts.text({ plain, ...question }),
      select: (question) => prompts.select({ plain, ...question }),
      secret: (question) => prompts.secret(question),
      confirmName: (question) => prompts.confirmName({ plain, ...question }),
    };
  }

  /** The one-line warning before a create on a protected profile. */
  async protectedBadge(target: {
    profile: string;
    baseUrl: string | null;
    protected: boolean;
  }): Promise<void> {
    if (!target.protected || this.globals.quiet) return;
    const host = target.baseUrl ? hostOf(target.baseUrl) : undefined;
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
    this.deps.io.stdout.write(text);
  }

  /** Pets on stdout in this run's mode: table, TSV or JSON. */
  async printPets(pets: readonly Pet[]): Promise<void> {
    if (this.mode === 'json') return this.printJson(pets);
    const { renderPets } = await import('../../output/render.js');
    this.print(await renderPets(pets, this.mode, await this.stdoutColors(), this.tableWidth));
  }

  /** One pet: the object itself with --json, else a one-row table or TSV. */
  async printPet(pet: Pet): Promise<void> {
    if (this.mode === 'json') return this.printJson(pet);
    const { renderPets } = await import('../../output/render.js');
    this.print(await renderPets([pet], this.mode, await this.stdoutColors(), this.tableWidth));
  }

  /** `value` as exact JSON on stdout. It needs no table library, so --json loads none. */
  async printJson(value: unknown): Promise<void> {
    const { renderJson } = await import('../../output/render-json.js');
    if (this.jq) this.printJsonText(renderJson(value, false));
    else this.print(renderJson(value, this.deps.io.stdoutIsTTY));
  }

  /**
   * JSON text on stdout as it is (a batch's NDJSON line, a server's answer), or what --jq
   * makes of it, printed as jq makes it. A failing filter does not stop a batch: the batch
   * ends with its summary, then the run exits with the filter's failure.
   */
  printJsonText(text: string): void {
    if (!this.jq) return this.print(text);
    const failure = this.jq.run(text, {
      write: (results) => this.deps.io.stdout.write(results) !== false,
      // What the filter itself asked to say: not silenced by --quiet.
      say: (kind, said) =>
        this.stderr.write(kind === 'debug' ? 'trace' : 'notice', {
          code: kind === 'debug' ? 'jq_debug' : 'jq_stderr',
          message: said,
        }),
    });
    this.jqFailure ??= failure;
  }

  /** A message for the person at the terminal; --quiet silences it. */
  notice(message: string, fields: NoticeFields = {}): void {
    if (!this.globals.quiet) this.stderr.write('notice', { code: 'notice', ...fields, message });
  }

  /** A warning, its label coloured as errors' are; --quiet silences it. */
  async warn(message: string, fields: NoticeFields = {}): Promise<void> {
    if (this.globals.quiet) return;
    const colors = await this.stderrColors();
    this.stderr.write(
      'warning',
      { code: 'warning', ...fields, message },
      `${colors.yellow('warning:')} ${escapeForTerminal(message)}`,
    );
  }

  /** A dim aside about what is shown; --quiet silences it. */
  async hint(message: string, fields: NoticeFields = {}): Promise<void> {
    if (this.globals.quiet) return;
    const colors = await this.stderrColors();
    this.stderr.write(
      'hint',
      { code: 'hint', ...fields, message },
      colors.dim(escapeForTerminal(message)),
    );
  }

  /** What a run that handled many things did, counted; --quiet silences it. */
  summary(message: string, fields: NoticeFields = {}): void {
    if (!this.globals.quiet) this.stderr.write('summary', { code: 'summary', ...fields, message });
  }

  private configExposureSaid = false;

  /**
   * The config store, whose reads warn (once a run) when others can read the file: it holds
   * keys. The next write sets it to 0600.
   */
  async config(): Promise<ConfigStore> {
    const store = await this.deps.config();
    const read = (): ReturnType<ConfigStore['read']> => {
      const data = store.read();
      if (store.readableByOthers && !this.configExposureSaid) {
        this.configExposureSaid = true;
        void this.warn(
          `the config file ${store.path} can be read by other users, and it holds keys: pets sets it to 0600 when it next saves it`,
          { code: 'config_readable', hint: `chmod 600 ${store.path}` },
        );
      }
      return data;
    };
    return Object.create(store, { read: { value: read } }) as ConfigStore;
  }

  private resolvedTarget?: ApiTarget;

  /** The profile, address and key of this run, resolved once. */
  async target(): Promise<ApiTarget> {
    if (this.resolvedTarget) return this.resolvedTarget;
    const { resolveTarget } = await import('../../config/resolve-target.js');
    const store = await this.config();
    const target = resolveTarget(store.read(), this.globals.profile, this.deps.env);
    this.secrets.add(target.apiKey).addUrlPassword(target.rateStore?.password);
    this.resolvedTarget = target;
    return target;
  }

  /**
   * The API client for `target` (default: the resolved one) and its rate gate; `wait`
   * replaces the countdown. A batch (many requests, run unattended) waits as its work needs,
   * and needs the rate-limit state it shares with other processes on the key. The gate keeps
   * its first settings, so each function given is made once a run.
   */
  async api(target?: ApiTarget, wait?: Waiter, run: { batch?: boolean } = {}): Promise<KeyApi> {
    this.apiCalls ??= this.apiFunctions();
    return this.deps.api(target ?? (await this.target()), {
      timeoutMs: this.globals.timeout * 1000,
      maxWaitSeconds: this.globals.maxWait,
      batch: run.batch ?? false,
      ...(await this.apiCalls),
      ...(wait && { wait }),
    });
  }

  private apiCalls?: ReturnType<Session['apiFunctions']>;

  private async apiFunctions(): Promise<Pick<HttpSettings, 'warn' | 'wait' | 'trace'>> {
    const dim = this.globals.debug ? (await this.stderrColors()).dim : undefined;
    const { countdownWaiter } = await import('../../terminal/countdown.js');
    return {
      warn: (line) => void this.warn(line),
      wait: countdownWaiter(this.deps.clock, this.deps.io.stderr, this.showsProgress, () =>
        this.stderrTerminal(),
      ),
      ...(dim && {
        trace: (line: string) =>
          this.stderr.write('trace', { code: 'http', message: line }, dim(escapeForTerminal(line))),
      }),
    };
  }
}

/** The run's session, made on first use once commander has parsed the global options. */
export type SessionSource = () => Session;
