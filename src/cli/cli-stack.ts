// What every run but --version needs, behind one import() in main.ts, for the reason given
// in api-stack.ts: each import() target is a file to find, read and compile at start-up.
export { CommanderError } from 'commander';
export { InterruptedError } from '../errors.js';
export { buildProgram } from './program.js';
export { createDeps } from './wiring.js';
