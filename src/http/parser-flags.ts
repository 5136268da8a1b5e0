/**
 * undici parses HTTP with WebAssembly, and V8's background optimisation of that module held
 * every run ~180 ms past its end; the baseline compiler alone parses our small answers just
 * as well. node:v8 costs ~3 ms to load (it brings the streams), so only runs that call the
 * API set this.
 */
export async function useBaselineWasmCompiler(): Promise<void> {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--liftoff-only');
}
