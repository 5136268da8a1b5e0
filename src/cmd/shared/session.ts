import type { PetsApi } from '../../api/client.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import type { Pet } from '../../api/contract.js';
import type { ConfigStore } from '../../config/store.js';
import type { Waiter } from '../../ratelimit/gate.js';
import { colorEnabled, palette, type Palette } from '../../output/color.js';
import { chooseMode, type OutputMode } from '../../output/mode.js';
import { escapeForTerminal } from '../../core/terminal-text.js';
import { redact } from '../../core/redact.js';
import type { Io, Output } from '../../terminal/io.js';
import type { Deps } from './deps.js';

/** The global options, as commander parsed them. */
export interface GlobalOptions {
  profile?: string;
  json: boolean;
  color: boolean;
  quiet: boolean;
  timeout: number;
  maxWait: number;
  debug: boolean;
  /** false with --no-input: never prompt. */
  input: boolean;
}

/**
 * `io` with stdout and stderr passed through the redaction errors use, so that a key a
 * server echoes (in a record's error, a pet's name, a header in the trace) never shows.
 * The rest of `io` is reached through it: stdin is a getter that must stay lazy.
 */
function redactingIo(io: Io, secrets: ReadonlySet<string>): Io {
  const clean = (output: Output): Output => ({
    write: (text: string) => output.write(secrets.size ? redact(text, secrets) : text),
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
  /** Every key this run has handled, so that no message can ever print one. */
  readonly secrets = new Set<string>();

  /** The run's deps, its stdout and stderr redacting every key in `secrets`. */
  readonly deps: Deps;

  constructor(
    deps: Deps,
    readonly globals: GlobalOptions,
  ) {
    if (deps.env.PETS_API_KEY) this.secrets.add(deps.env.PETS_API_KEY);
    this.deps = { ...deps, io: redactingIo(deps.io, this.secrets) };
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

  /** Countdowns and progress: only for a person at a terminal who did not ask for quiet. */
  get showsProgress(): boolean {
    return this.deps.io.stderrIsTTY && !this.globals.quiet;
  }

  /**
   * Hints about what is shown (which environment, a full page): for a person reading the
   * output at a terminal, so neither stream may be a pipe, and not with --quiet.
   */
  get showsHints(): boolean {
    return this.deps.io.stdoutIsTTY && this.showsProgress;
  }

  /** Whether a question may be asked: a terminal on stdin, and no --no-input. */
  get canPrompt(): boolean {
    return this.deps.io.stdinIsTTY && this.globals.input !== false;
  }

  /** The one-line warning before a create on a protected profile. */
  async protectedBadge(target: {
    profile: string;
    baseUrl: string | null;
    protected: boolean;
  }): Promise<void> {
    if (!target.protected || this.globals.quiet) return;
    const host = target.baseUrl ? ` ${escapeForTerminal(new URL(target.baseUrl).host)}` : '';
    const colors = await this.stderrColors();
    this.deps.io.stderr.write(
      `${colors.badge(' PROTECTED ')} ${colors.bold(escapeForTerminal(target.profile))}${host}\n`,
    );
  }

  /**
   * On a terminal, a dim line naming the profile and host a read goes to, so that nobody
   * mistakes production's answer for staging's. Nothing in a pipe or with --quiet.
   */
  async environmentLine(target: ApiTarget): Promise<void> {
    if (!this.showsHints) return;
    const colors = await this.stderrColors();
    const host = new URL(target.baseUrl).host;
    this.deps.io.stderr.write(`${colors.dim(escapeForTerminal(`${target.profile} · ${host}`))}\n`);
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
    this.print(renderJson(value, this.deps.io.stdoutIsTTY));
  }

  /** A message for the person at the terminal; --quiet silences it. */
  notice(text: string): void {
    if (!this.globals.quiet) this.deps.io.stderr.write(`${escapeForTerminal(text)}\n`);
  }

  /** A warning, its label coloured as errors' are; --quiet silences it. */
  async warn(text: string): Promise<void> {
    if (this.globals.quiet) return;
    const colors = await this.stderrColors();
    this.deps.io.stderr.write(`${colors.yellow('warning:')} ${escapeForTerminal(text)}\n`);
  }

  async config(): Promise<ConfigStore> {
    return this.deps.config();
  }

  private resolvedTarget?: ApiTarget;

  /** The profile, address and key of this run, resolved once. */
  async target(): Promise<ApiTarget> {
    if (this.resolvedTarget) return this.resolvedTarget;
    const { resolveTarget } = await import('../../config/resolve-target.js');
    const store = await this.config();
    const target = resolveTarget(store.read(), this.globals.profile, this.deps.env);
    this.secrets.add(target.apiKey);
    this.resolvedTarget = target;
    return target;
  }

  /** The API client for `target` (default: the resolved one); `wait` replaces the countdown. */
  async api(target?: ApiTarget, wait?: Waiter): Promise<PetsApi> {
    const dim = this.globals.debug ? (await this.stderrColors()).dim : undefined;
    const trace = dim
      ? (line: string) => this.deps.io.stderr.write(`${dim(escapeForTerminal(line))}\n`)
      : undefined;
    const { countdownWaiter } = await import('../../terminal/countdown.js');
    return this.deps.api(target ?? (await this.target()), {
      timeoutMs: this.globals.timeout * 1000,
      maxWaitMs: this.globals.maxWait * 1000,
      wait: wait ?? countdownWaiter(this.deps.clock, this.deps.io.stderr, this.showsProgress),
      trace,
    });
  }
}

/** The run's session, made on first use once commander has parsed the global options. */
export type SessionSource = () => Session;
