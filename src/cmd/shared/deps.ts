import type { PetsApi } from '../../api/client.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import type { Env } from '../../config/paths.js';
import type { Clock } from '../../core/clock.js';
import type { Secrets } from '../../core/redact.js';
import type { ConfigStore } from '../../config/store.js';
import type { RateGate, Waiter } from '../../ratelimit/gate.js';
import type { Io } from '../../terminal/io.js';
import type { Prompter } from '../../terminal/prompt.js';

export interface HttpSettings {
  timeoutMs: number;
  /** --max-wait: how long the command may wait on rate limits before exit 5; else its kind's. */
  maxWaitSeconds?: number;
  /**
   * Many requests, run unattended: it refuses to start when the rate-limit state cannot be
   * shared with other processes on the key. A short command goes on with a warning.
   */
  batch: boolean;
  /** Prints a one-line warning on stderr. */
  warn?: (line: string) => void;
  /** How waits are spent: a countdown on a terminal. */
  wait?: Waiter;
  /** Receives one line per request attempt (--debug). */
  trace?: (line: string) => void;
}

/** The client of one key, and the rate gate its requests go through, side by side. */
export interface KeyApi {
  api: PetsApi;
  /** What commands read of the gate: the quota, the requests sent, and those to come. */
  gate: Pick<RateGate, 'snapshot' | 'expect' | 'sentCount' | 'storeView'>;
}

/** Everything a command reaches outside itself. Built once per run in createDeps; tests build their own. */
export interface Deps {
  io: Io;
  env: Env;
  clock: Clock;
  /** Aborts on Ctrl-C. */
  signal: AbortSignal;
  /** Opened on first use: conf costs start-up time that --help and --version should not pay. */
  config(): Promise<ConfigStore>;
  /** Opened on first use, for the same reason (undici). */
  api(target: ApiTarget, settings: HttpSettings): Promise<KeyApi>;
  /** Questions for a person at the terminal; asked only where terminal.canPrompt allows. */
  prompts: Prompter;
  /**
   * Every secret the run holds (the API key, a proxy's credentials, …), redacted from its
   * output, errors, trace, journal and state: whatever learns a secret adds it here.
   */
  secrets: Secrets;
  /** Saves what must outlive the run (rate-limit state) and releases sockets. */
  close(): Promise<void>;
}
