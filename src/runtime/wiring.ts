import { setMaxListeners } from 'node:events';
import type { ApiTarget } from '../config/resolve-target.js';
import type { ConfigStore } from '../config/store.js';
import type { Transport } from '../http/transport.js';
import type { ProxySettings } from '../http/proxy-env.js';
import type { RateGate } from '../ratelimit/gate.js';
import type { StateStore } from '../ratelimit/state-store.js';
import { packageVersion } from '../core/version.js';
import type { Env } from '../config/paths.js';
import { systemClock, type Clock } from '../core/clock.js';
import { fdOutput, isTerminal } from './fd-output.js';
import { processAlive } from '../core/process-alive.js';
import { Secrets } from '../core/redact.js';
import { urlPassword } from '../config/rate-store.js';
import type { Deps, HttpSettings } from '../cmd/shared/deps.js';
import type { Io } from '../terminal/io.js';
import { terminalPrompter, type Prompter } from '../terminal/prompt.js';

const MAX_BODY_BYTES = 8 * 1024 * 1024;

export function userAgent(): string {
  return `pets/${packageVersion()} node/${process.versions.node} ${process.platform}`;
}

/**
 * The process's own io. Output goes straight to file descriptors 1 and 2 (fd-output.ts);
 * `onClosed` runs when the reader of stdout closes its end.
 */
export async function processIo(onClosed: () => void): Promise<Io> {
  const [stdoutIsTTY, stderrIsTTY] = await Promise.all([isTerminal(1), isTerminal(2)]);
  return {
    stdout: fdOutput(1, onClosed),
    // A closed stderr only loses messages: the run goes on and exits with its own code, so
    // a failed add (exit 7) does not become a success (exit 0) for the script that ran it.
    stderr: fdOutput(2, () => {}),
    // Node builds process.stdin on first touch, loading fs streams; most commands
    // never read it.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY,
    stderrIsTTY,
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    // Asked only to draw a table on a terminal, which loads cli-table3 anyway. A terminal
    // that does not know its size says 0.
    get stdoutColumns() {
      return (stdoutIsTTY && process.stdout.columns) || undefined;
    },
    // Asked only by a progress line on a terminal, at each draw. Node reads a terminal's size
    // again on SIGWINCH, but a frame drawn between a resize and the signal's turn of the event
    // loop would wrap and stay on the screen: so the size is read again here (one ioctl, at
    // most ten times a second), which also emits 'resize' if it changed.
    get stderrColumns() {
      if (!stderrIsTTY) return undefined;
      const stderr = process.stderr as typeof process.stderr & { _refreshSize?: () => void };
      stderr._refreshSize?.();
      return stderr.columns || undefined;
    },
    onStderrResize(listener) {
      if (!stderrIsTTY) return () => {};
      process.stderr.on('resize', listener);
      return () => process.stderr.off('resize', listener);
    },
  };
}

export interface WiringOptions {
  signal: AbortSignal;
  io: Io;
  env?: Env;
  clock?: Clock;
  /**
   * The process ends right after the run (main, for bin/pets.js): close() then leaves
   * undici's sockets for the OS to close. undici unrefs idle ones, so they do not hold the
   * process open, and closing them gracefully would hold up every API command's exit.
   */
  processEndsAfterRun?: boolean;
  /** Answers in place of a person's (tests); by default, questions on io's terminal. */
  prompts?: Prompter;
}

/**
 * The one place real dependencies are made: main passes the process's io (processIo), tests
 * their own io and env. Heavy modules load only when a command asks for them.
 */
export function createDeps({
  signal,
  io,
  env = process.env,
  clock = systemClock,
  processEndsAfterRun = false,
  prompts = terminalPrompter(io, signal),
}: WiringOptions): Deps {
  let config: ConfigStore | undefined;
  const transports: Transport[] = [];
  const gates = new Map<string, RateGate>();
  const secrets = new Secrets().add(env.PETS_API_KEY).add(urlPassword(env.PETS_RATE_STORE));
  let proxy: ProxySettings | null | undefined;

  return {
    io,
    env,
    clock,
    signal,
    prompts,
    secrets,
    async config() {
      if (!config) {
        const [{ openConfigStore }, { configDir }] = await Promise.all([
          import('../config/store.js'),
          import('../config/paths.js'),
        ]);
        config = openConfigStore(configDir(env));
      }
      return config;
    },
    async api(target: ApiTarget, settings: HttpSettings) {
      // Each request of a batch listens for Ctrl-C: many listeners are expected, not a leak.
      // Said here, not for every run: only runs that send requests need it.
      setMaxListeners(0, signal);
      secrets.add(target.apiKey).add(target.rateStore?.password);
      const [
        { createTransport },
        { PetsApi },
        { tracingSender },
        { RateGate },
        { fileStore, stateName },
        { CLAIM_SLACK_MS },
        { configDir },
        { checkStateFolderAndFiles },
        { normalizedOrigin },
        { keyFingerprint },
        { RATE_LIMIT_HEADERS },
        { parseErrorBody },
        { proxySettings },
      ] = await Promise.all([
        import('../http/transport.js'),
        import('../api/client.js'),
        import('../http/trace.js'),
        import('../ratelimit/gate.js'),
        import('../ratelimit/state-store.js'),
        import('../ratelimit/policy.js'),
        import('../config/paths.js'),
        import('../config/owned-files.js'),
        import('../config/base-url.js'),
        import('../config/key-fingerprint.js'),
        import('../ratelimit/rate-headers.js'),
        import('../api/validate.js'),
        import('../http/proxy-env.js'),
      ]);
      // The environment's proxies, read once per run.
      proxy ??= proxySettings(env) ?? null;
      for (const secret of [...(proxy?.https?.secrets ?? []), ...(proxy?.http?.secrets ?? [])]) {
        secrets.add(secret);
      }
      const transport = createTransport({
        timeoutMs: settings.timeoutMs,
        maxBodyBytes: MAX_BODY_BYTES,
        proxy: proxy ?? undefined,
      });
      transports.push(transport);
      const send = settings.trace
        ? tracingSender(
            transport.send,
            settings.trace,
            clock.now,
            Object.values(RATE_LIMIT_HEADERS),
            transport.proxyFor,
          )
        : transport.send;
      // One gate per key and server for the whole process: a 429 seen by one request holds
      // back all, and the state it shares with other pets processes is the key's, whatever
      // profile or spelling of the address led to it.
      const name = stateName(normalizedOrigin(target.baseUrl), keyFingerprint(target.apiKey));
      let gate = gates.get(name);
      if (!gate) {
        const shared = target.rateStore;
        let store: StateStore;
        if (shared) {
          const { openRedisStore } = await import('../ratelimit/redis-store.js');
          store = await openRedisStore(shared, name, (text) => secrets.redact(text));
        } else {
          store = fileStore(configDir(env), name);
          // What decides when pets may send is trusted only from a folder that is the user's.
          checkStateFolderAndFiles(store.folder!);
        }
        gate = new RateGate({
          send,
          clock,
          random: Math.random,
          ...settings.waits,
          store,
          claimMs: settings.timeoutMs + CLAIM_SLACK_MS,
          // A claim is named `pid.…`. In a store shared by machines, a pid may be another
          // machine's: there, claims lapse by time alone.
          ...(shared
            ? {}
            : { claimAlive: (claim: string) => processAlive(Number(claim.split('.')[0])) }),
          wait: settings.wait,
          trace: settings.trace,
          warn: settings.warn,
          redact: (text) => secrets.redact(text),
          errorCode: (body) => parseErrorBody(body)?.code,
        });
        gates.set(name, gate);
      }
      if (settings.batch) await gate.requireShared();
      const keyGate = gate;
      return new PetsApi({
        target,
        secrets,
        send: keyGate.send,
        userAgent: userAgent(),
        now: clock.now,
        rateLimitState: () => keyGate.snapshot,
        expectRequests: (count) => keyGate.expect(count),
        requestsSent: () => keyGate.sentCount,
      });
    },
    async close() {
      // Claims a gate took ahead and did not use go back to the shared state.
      await Promise.all([...gates.values()].map((gate) => gate.finish()));
      if (!processEndsAfterRun) await Promise.all(transports.map((t) => t.close()));
    },
  };
}
