// jq-wasm, by name: jq 1.8 itself, compiled to WebAssembly. The build gives this module a file
// of its own, with jq.wasm beside it (src/build/bundle.mjs): only runs with --jq load it.
import { getAsset, isSea } from 'node:sea';
import { loadJq as loadJqWasm, type Jq } from 'jq-wasm';

export type { Jq };

/**
 * jq, from the jq.wasm beside this file; in the single executable (src/build/executable.mjs),
 * which has no files beside it, from the asset it carries.
 */
export function loadJq(): Promise<Jq> {
  return isSea() ? loadJqWasm({ wasmBinary: getAsset('vendor/build/jq.wasm') }) : loadJqWasm();
}
