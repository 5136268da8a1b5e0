import type { Command } from 'commander';
import type { SessionSource } from './session.js';

/** One top-level command: the names it answers to, and how it adds itself to the program. */
export interface CommandModule {
  readonly names: readonly string[];
  /** A run of it sends requests: runtime/engine.ts sets undici's V8 flags before compiling. */
  readonly callsApi: boolean;
  define(program: Command, getSession: SessionSource): void;
}

/** What reading a command line needs to know of the program (runtime/argv.ts). */
export interface CommandTable {
  /** Each top-level command's names, and whether a run of it sends requests. */
  commands: ReadonlyArray<Pick<CommandModule, 'names' | 'callsApi'>>;
  /** The global options that take a value: in `pets --profile quota list`, list is the command. */
  valuedOptions: readonly string[];
}
