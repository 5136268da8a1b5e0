// jq-wasm, by name: jq 1.8 itself, compiled to WebAssembly. The build gives this module a file
// of its own, with jq.wasm beside it (src/build/bundle.mjs): only runs with --jq load it.
//
// jq-wasm gathers all that jq writes and hands it over when jq ends, which holds every result
// in memory (744 MB for `repeat(1) | head -1`, then a crash at 2.35 GB). Here jq's writes go
// to the caller as jq makes them instead: jq-wasm lets its user instantiate jq.wasm
// (`instantiateWasm`), so pets wraps four of the functions jq imports from its runtime:
// write(2), to take stdout and stderr; the heap's growth, to bound it; and the two ways jq
// aborts, so that an abort is an outcome instead of a line jq-wasm prints and a dead instance.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAsset, isSea } from 'node:sea';
import { loadJq as loadJqWasm } from 'jq-wasm';

export interface JqSink {
  /** Bytes jq wrote to stdout; false stops jq (the reader has gone). */
  stdout(bytes: Uint8Array): boolean;
  /** Bytes jq wrote to stderr: debug, stderr, halt_error and its own error messages. */
  stderr(bytes: Uint8Array): void;
}

export type JqOutcome =
  /** jq ended by itself, with this exit code; `outOfMemory` if it was refused memory. */
  | { kind: 'exited'; exitCode: number; outOfMemory: boolean }
  /** The sink said stop. */
  | { kind: 'stopped' }
  /** jq aborted: it needed more than the heap's bound (`outOfMemory`), or failed inside. */
  | { kind: 'aborted'; outOfMemory: boolean; problem: string };

export interface JqEngine {
  /**
   * Runs jq `flags` `program` on the JSON text `input`, its output going to `sink`, its heap
   * growing to at most `heapBytes` (at most JQ_WASM_HEAP_MAX); past that, jq stops as out of
   * memory. The heap never shrinks: a later run starts with what an earlier one grew.
   */
  run(
    input: string,
    program: string,
    flags: readonly string[],
    sink: JqSink,
    heapBytes: number,
  ): JqOutcome;
}

/** The heap jq.wasm was built to grow to at most (jq-wasm's getHeapMax). */
export const JQ_WASM_HEAP_MAX = 256 * 1024 * 1024;
const WASM_PAGE = 64 * 1024;

// jq-wasm 3.0.0-jq-1.8.2's names for what jq.wasm imports (package.json pins the version, and
// test/build/stubs.test.ts checks them): write(2), the heap's growth, abort() and a failed assert().
const FD_WRITE = 'd';
const RESIZE_HEAP = 'k';
const ABORT = 'E';
const ASSERT_FAIL = 'a';

// What pets uses of WebAssembly, which the ES library tsc is given does not declare.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Memory: abstract new (...args: never[]) => WasmMemory;
  instantiate(
    bytes: Uint8Array,
    imports: unknown,
  ): Promise<{ instance: { exports: Record<string, unknown> }; module: unknown }>;
};

/** Thrown through jq's frames to leave it: jq-wasm restores its stack on the way out. */
class LeaveJq extends Error {
  constructor(readonly outcome: JqOutcome) {
    super('leave jq');
  }
}

/** What the run under way shares with the imports pets wraps: jq's heap, its bound, the sink. */
interface JqRun {
  memory?: WasmMemory;
  sink?: JqSink;
  heapBytes: number;
  heapRefused: boolean;
}

/**
 * jq, from the jq.wasm beside this file; in the single executable (src/build/executable.mjs),
 * which has no files beside it, from the asset it carries.
 */
export async function loadJqEngine(): Promise<JqEngine> {
  const bytes = jqWasm();
  const current: JqRun = { heapBytes: 0, heapRefused: false };
  const jq = await loadJqWasm({
    instantiateWasm(imports, onSuccess) {
      wrapImports(imports.a as Record<string, (...args: number[]) => number>, current);
      // Returned, so that jq-wasm rejects loadJq if this fails.
      return WebAssembly.instantiate(bytes, imports).then(({ instance, module }) => {
        current.memory = Object.values(instance.exports).find(
          (value): value is WasmMemory => value instanceof WebAssembly.Memory,
        );
        onSuccess(instance as never, module as never);
      });
    },
  });

  return {
    run(input, program, flags, sink, heapBytes) {
      current.sink = sink;
      current.heapBytes = Math.floor(Math.min(heapBytes, JQ_WASM_HEAP_MAX) / WASM_PAGE) * WASM_PAGE;
      current.heapRefused = false;
      try {
        const { exitCode } = jq.raw(input, program, [...flags]);
        return { kind: 'exited', exitCode, outOfMemory: current.heapRefused };
      } catch (error) {
        if (error instanceof LeaveJq) return error.outcome;
        // A trap in jq's code (a WebAssembly RuntimeError) ends it as an abort does.
        return {
          kind: 'aborted',
          outOfMemory: current.heapRefused,
          problem: error instanceof Error ? error.message : String(error),
        };
      } finally {
        current.sink = undefined;
      }
    },
  };
}

/**
 * Replaces the four runtime functions pets wraps (see the top of this file): write(2) goes to
 * the run's sink, the heap grows within the run's bound, and an abort leaves jq as an outcome.
 */
function wrapImports(runtime: Record<string, (...args: number[]) => number>, run: JqRun): void {
  const resize = runtime[RESIZE_HEAP]!;
  runtime[FD_WRITE] = (fd, iov, count, written) => {
    const view = new DataView(run.memory!.buffer);
    let total = 0;
    for (let i = 0; i < count; i++) {
      const base = view.getUint32(iov + i * 8, true);
      const length = view.getUint32(iov + i * 8 + 4, true);
      // A copy: the heap's buffer is replaced when it grows.
      const chunk = new Uint8Array(run.memory!.buffer, base, length).slice();
      total += length;
      if (fd === 1) {
        if (!run.sink!.stdout(chunk)) throw new LeaveJq({ kind: 'stopped' });
      } else run.sink!.stderr(chunk);
    }
    view.setUint32(written, total, true);
    return 0;
  };
  runtime[RESIZE_HEAP] = (requested) => {
    if (requested > run.heapBytes) {
      run.heapRefused = true;
      return 0;
    }
    // jq-wasm would grow the heap by a fifth more than asked, past the bound: pets grows
    // it itself, by as much but within the bound. jq-wasm's views of the old heap are now
    // detached (empty), so it takes the new size as asked, grows nothing, and renews them.
    const current = run.memory!.buffer.byteLength;
    const target = Math.min(run.heapBytes, Math.max(requested, current * 1.2));
    const size = Math.ceil(target / WASM_PAGE) * WASM_PAGE;
    if (size > current) run.memory!.grow((size - current) / WASM_PAGE);
    return resize(size);
  };
  const aborted = (): never => {
    throw new LeaveJq({
      kind: 'aborted',
      outOfMemory: run.heapRefused,
      problem: run.heapRefused ? 'out of memory' : 'jq aborted',
    });
  };
  runtime[ABORT] = aborted;
  runtime[ASSERT_FAIL] = aborted;
}

/**
 * jq.wasm's bytes: beside this file in dist/vendor (src/build/bundle.mjs puts it there), from
 * the single executable's assets, or, run from the sources (the tests), jq-wasm's own.
 */
function jqWasm(): Uint8Array {
  if (isSea()) return new Uint8Array(getAsset('vendor/build/jq.wasm'));
  const beside = join(__dirname, 'build', 'jq.wasm');
  const fromSources = join(__dirname, '../../node_modules/jq-wasm/dist/build/jq.wasm');
  return readFileSync(existsSync(beside) ? beside : fromSources);
}
