import type { Command } from 'commander';
import type { SessionSource } from './session.js';

/** One top-level command: the names it answers to, and how it adds itself to the program. */
export interface CommandModule {
  readonly names: readonly string[];
  /** A run of it sends requests: runtime/engine.ts sets undici's V8 flags before compiling. */
  readonly callsApi: boolean;
  define(program: Command, session: SessionSource): void;
}
