import type { OutputConfiguration } from 'commander';
import type { Io } from './io.js';

/**
 * Where commander writes help, on the run's io: as wide as the terminal (else commander's 80
 * columns), with no colour to keep. Asked of io, since commander would build process.stdout
 * (loading Node's streams) just to learn that output is not a terminal. Its usage shown for a
 * missing command is not written under --json (`json`): main reports that as a JSON error,
 * and prints every usage error itself, in text or JSON, with the exit code of the contract.
 */
export function helpOutput({ io }: { io: Io }, json: () => boolean): OutputConfiguration {
  return {
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => void (json() || io.stderr.write(text)),
    outputError: () => {},
    getOutHelpWidth: () => io.stdoutColumns ?? 80,
    getErrHelpWidth: () => io.stderrColumns ?? 80,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
}
