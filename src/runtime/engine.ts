import type { Env } from '../config/paths.js';
import { useBaselineWasmCompiler } from '../http/parser-flags.js';
import { callsApi, runKind } from './argv.js';
import { enableCompileCache } from './compile-cache.js';

/**
 * Readies V8 for a real run: its flags first, then the compile cache. V8 accepts cached
 * code only under the flags it was made with, so each kind of run sets its flags before any
 * of pets's code is compiled, the same way every time: a flag set later (as this one once
 * was, by the first API call) made the cache be refused and written anew on every run.
 */
export async function prepareEngine(env: Env, argv: readonly string[]): Promise<void> {
  const kind = runKind(argv.slice(2));
  if (callsApi(kind)) await useBaselineWasmCompiler();
  enableCompileCache(env, kind);
}
