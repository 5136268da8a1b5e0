// First: on a Node pets does not support, nothing of it may run but this check (node-check.ts)
// and the plain look at argv that says whether to refuse in JSON (argv.ts).
import { refuseUnsupportedNode } from './node-check.js';
import { packageVersion } from '../core/version.js';
import type { Deps } from '../cmd/shared/deps.js';
import type { RunState } from '../cmd/root.js';
import { readEarlyArgs, type EarlyArgs } from './argv.js';
import { restartForExtraCaCerts } from './extra-ca-certs.js';
import { fdOutput } from './fd-output.js';
import { routeNodeWarnings, type NodeWarnings } from './node-warnings.js';
import { onInterrupt } from './signals.js';

/** Commander's ways of ending well: --help and --version. */
const CLEAN_EXITS = new Set(['commander.helpDisplayed', 'commander.version']);

/**
 * Runs pets with `argv` (as in process.argv) and returns the exit code. This is the only
 * place that catches errors: everything below throws, and this decides what the user sees.
 */
export async function main(argv: readonly string[], deps?: Deps): Promise<number> {
  const args = readEarlyArgs(argv);
  const refused = refuseUnsupportedNode(args.json);
  if (refused !== undefined) return refused;
  // `pets --version` is the one answer that needs nothing else: scripts call it to check
  // for pets, so it should cost no more than starting node.
  const words = argv.slice(2);
  if (words.length === 1 && (words[0] === '--version' || words[0] === '-V')) {
    (deps?.io.stdout ?? fdOutput(1, endOnClosedOutput)).write(`${packageVersion()}\n`);
    return 0;
  }
  const state: RunState = {};
  // A real run, not a test with deps of its own: the process is pets's alone.
  const nodeWarnings = deps ? undefined : await takeProcess(argv, args, state);
  // Loaded here, not at the top, so that the lines above pay for none of it.
  const stack = await import('./cli-stack.js');
  const { CommanderError, InterruptedError, buildProgram, createDeps, processIo, reportFailure } =
    stack;
  const stop = new AbortController();
  // `pets list | head -1` closes the pipe while pets still writes: that is the reader having
  // had enough, so a read ends quietly. A batch stops as on Ctrl-C: records are left unsent.
  const onClosedOutput = () => {
    if (!state.session?.stopsOnClosedOutput) endOnClosedOutput();
    if (!stop.signal.aborted) stop.abort(new InterruptedError(false, 'stdout was closed'));
  };
  const ownDeps =
    deps ??
    createDeps({
      signal: stop.signal,
      io: await processIo(onClosedOutput),
      processEndsAfterRun: true,
    });
  // Node's warnings that come before the session is made wait for it, or for the run's end.
  nodeWarnings?.writeWith(() => state.session, new stack.StderrNotices(ownDeps.io.stderr, true));
  const removeSignalHandlers = deps
    ? () => {}
    : onInterrupt(stop, (signal) => new InterruptedError(false, 'interrupted', signal));
  try {
    await buildProgram(ownDeps, state).parseAsync([...argv]);
    nodeWarnings?.flush();
    return state.session?.exitCode ?? 0;
  } catch (error) {
    nodeWarnings?.flush();
    if (error instanceof CommanderError && (CLEAN_EXITS.has(error.code) || error.exitCode === 0)) {
      return 0;
    }
    // Only a run that fails pays for loading how failures are told.
    const { colorEnabled, palette, describeError, writeError } = await reportFailure();
    const interrupted = ownDeps.signal.aborted && !(error instanceof CommanderError);
    const report = describeError(
      interrupted && !(error instanceof InterruptedError) ? new InterruptedError() : error,
      args.debug,
      words,
    );
    // Whatever stopped on the way, the run ends with the exit code of the signal that
    // stopped it (SIGTERM: 143), as a shell reports it.
    const stoppedBy: unknown = interrupted ? ownDeps.signal.reason : undefined;
    if (report.code === 'interrupted' && stoppedBy instanceof InterruptedError) {
      report.exitCode = stoppedBy.exitCode;
    }
    // A usage error can come before commander has parsed --json: argv said it already.
    const json = state.session?.globals.json ?? args.json;
    const colors = await palette(colorEnabled(ownDeps.io.stderrIsTTY, ownDeps.env, args.color));
    // Without --json, the usage commander printed says what is missing.
    if (json || !(error instanceof CommanderError && error.code === 'commander.help')) {
      writeError(
        report,
        ownDeps.io.stderr,
        json,
        colors,
        ownDeps.secrets.add(ownDeps.env.PETS_API_KEY),
      );
    }
    return report.exitCode;
  } finally {
    removeSignalHandlers();
    await ownDeps.close();
  }
}

/**
 * What a real run does to its process first: Node's warnings become pets's own in a JSON run
 * (node-warnings.ts), a NODE_EXTRA_CA_CERTS Node cannot open is left out (extra-ca-certs.ts),
 * and compiled code is kept.
 */
async function takeProcess(
  argv: readonly string[],
  args: EarlyArgs,
  state: RunState,
): Promise<NodeWarnings> {
  const warnings = routeNodeWarnings(() => state.session?.globals.json ?? args.json);
  if (args.json) await restartForExtraCaCerts(argv);
  (await import('./compile-cache.js')).enableCompileCache(process.env, args.kind);
  return warnings;
}

/** A read whose output nobody reads any more is done: end quietly, not on EPIPE. */
function endOnClosedOutput(): never {
  process.exit(0);
}
