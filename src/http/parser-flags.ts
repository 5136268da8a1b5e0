/**
 * undici parses HTTP with WebAssembly, and V8's background optimisation of that module holds
 * a short run open past its end; the baseline compiler alone parses our small answers just
 * as well. node:v8 brings the streams with it, so only runs that call the API load it.
 */
export async function useBaselineWasmCompiler(): Promise<void> {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--liftoff-only');
}
