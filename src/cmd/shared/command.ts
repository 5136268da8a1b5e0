import type { Command } from 'commander';
import type { SessionSource } from './session.js';

/** One top-level command: how it adds itself to the program. */
export interface CommandModule {
  define(program: Command, getSession: SessionSource): void;
}
