// jq-wasm, by name: jq 1.8 itself, compiled to WebAssembly. The build gives this module a file
// of its own, with jq.wasm beside it (src/build/bundle.mjs): only runs with --jq load it.
export { loadJq } from 'jq-wasm';
export type { Jq } from 'jq-wasm';
