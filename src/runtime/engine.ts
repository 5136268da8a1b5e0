import type { Env } from '../config/paths.js';
import { useBaselineWasmCompiler } from '../http/parser-flags.js';
import type { CommandTable } from '../cmd/shared/command.js';
import { callsApi, runKind, type RunArgs } from './argv.js';
import { enableCompileCache } from './compile-cache.js';

/**
 * Readies V8 for a real run: its flags first, then the compile cache. V8 accepts cached
 * code only under the flags it was made with, so each kind of run sets its flags before any
 * of pets's code is compiled, the same way every time.
 */
export async function prepareEngine(env: Env, args: RunArgs, table: CommandTable): Promise<void> {
  if (callsApi(args, table)) await useBaselineWasmCompiler();
  enableCompileCache(env, runKind(args));
}
