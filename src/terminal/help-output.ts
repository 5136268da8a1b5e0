import type { OutputConfiguration } from 'commander';
import type { Io } from './io.js';

/**
 * Where commander writes help: on the run's io, as wide as its terminal (else 80 columns), no
 * colour. Not process.stdout, which loads Node's streams. Under --json (`json`) nothing on
 * stderr: main reports every usage error itself, in text or JSON, with the contract's code.
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
