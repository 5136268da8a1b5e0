import type { Env } from '../../config/paths.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import type { ConfigStore } from '../../config/store.js';
import type { Waiter } from '../../ratelimit/gate.js';
import { jsonOutput } from '../../output/mode.js';
import { escapeForTerminal } from '../../core/terminal-text.js';
import type { Secrets } from '../../core/redact.js';
import type { Clock } from '../../core/clock.js';
import { Terminal, type TerminalOptions } from '../../terminal/terminal.js';
import type { Deps, HttpSettings, KeyApi } from './deps.js';

/** The global options, as commander parsed them. */
export interface GlobalOptions extends TerminalOptions {
  profile?: string;
  timeout: number;
  /** --max-wait, when given: without it, the run's kind sets its waits (wait-limits.ts). */
  maxWait?: number;
  debug: boolean;
}

/**
 * One run of pets, and the factory door: its global options, its terminal, the config, target
 * and API made on first use, what it has learned and how it will exit. Its deps are its own.
 */
export class Session {
  exitCode = 0;
  /** A closed stdout stops the run as an interrupt does, instead of ending it quietly. */
  stopsOnClosedOutput = false;
  /** Every secret this run has handled, so that no message can ever print one. */
  readonly secrets: Secrets;

  /** The global options; --jq sets json too. */
  readonly globals: GlobalOptions;
  /** The terminal door: streams, what they are, questions, and all that is printed. */
  readonly terminal: Terminal;
  readonly clock: Clock;
  readonly env: Env;
  /** The run's stop: aborts on Ctrl-C or SIGTERM. */
  readonly signal: AbortSignal;

  constructor(
    private readonly deps: Deps,
    globals: GlobalOptions,
  ) {
    ({ clock: this.clock, env: this.env, signal: this.signal } = deps);
    this.secrets = deps.secrets.add(deps.env.PETS_API_KEY);
    this.globals = { ...globals, json: jsonOutput(globals) };
    this.terminal = new Terminal(deps, this.globals, this.secrets);
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
        void this.terminal.warn(
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
    const target = resolveTarget(store.read(), this.globals.profile, this.env);
    this.secrets.add(target.apiKey).add(target.rateStore?.password);
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
    const { terminal } = this;
    const dim = this.globals.debug ? (await terminal.stderrColors()).dim : undefined;
    return {
      warn: (line) => void terminal.warn(line),
      wait: await terminal.countdown(this.clock),
      ...(dim && {
        trace: (line: string) =>
          terminal.stderr.write(
            'trace',
            { code: 'http', message: line },
            dim(escapeForTerminal(line)),
          ),
      }),
    };
  }
}

/** The run's session, made on first use once commander has parsed the global options. */
export type SessionSource = () => Session;
