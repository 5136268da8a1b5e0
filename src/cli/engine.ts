import { setFlagsFromString } from 'node:v8';
import type { Env } from '../config/paths.js';
import { runKind } from './command-names.js';
import { enableCompileCache } from './compile-cache.js';

/**
 * Readies V8 for a real run: its flags first, then the compile cache. V8 accepts cached
 * code only under the flags it was made with, so a flag set later in a run (as this one
 * once was, by the first API call) made every cache written before it be refused and
 * rewritten on each run.
 */
export function prepareEngine(env: Env, argv: readonly string[]): void {
  // undici parses HTTP with WebAssembly; V8's background optimisation of that module held
  // every run ~180 ms past its end. The baseline compiler alone parses our small answers
  // just as well.
  setFlagsFromString('--liftoff-only');
  enableCompileCache(env, runKind(argv.slice(2)));
}
