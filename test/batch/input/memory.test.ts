import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { readRecords, type InputFormat } from '../../../src/batch/input/index.js';

const LINES = 1_000_000;
const LINES_PER_CHUNK = 1000;
const MAX_GROWTH_BYTES = 50 * 1024 * 1024;

// A full collection before each sample makes heapUsed measure what is kept, not garbage
// that has merely not been collected yet (young garbage alone can reach ~30 MiB).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Generates the input lazily, a chunk at a time: the test itself must not hold it. */
async function* generated(
  header: string,
  lineAt: (index: number) => string,
): AsyncGenerator<string> {
  if (header) yield header;
  for (let first = 0; first < LINES; first += LINES_PER_CHUNK) {
    let chunk = '';
    for (let index = first; index < first + LINES_PER_CHUNK; index++) chunk += lineAt(index);
    yield chunk;
  }
}

async function readCountingHeap(input: AsyncIterable<string>, format: InputFormat) {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  let pets = 0;
  let lastLine = 0;
  let lastCategoryId = 0n;
  const started = performance.now();
  for await (const record of readRecords(input, format)) {
    if (record.pet === undefined) throw new Error(`line ${record.line}: ${record.problem}`);
    pets++;
    lastLine = record.line;
    lastCategoryId = record.pet.categoryId;
    if (pets % 100_000 === 0) {
      collectGarbage();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  return {
    pets,
    lastLine,
    lastCategoryId,
    peakGrowth: peak - before,
    keptGrowth: after - before,
    seconds,
  };
}

describe('streaming a million lines', () => {
  it('reads 1,000,000 NDJSON lines without growing the heap', async () => {
    // Short lines: the cost is in parsing each line, and the aim here is the count and memory.
    const input = generated('', (index) => `{"name":"p${index}","categoryId":${index}}\n`);
    const result = await readCountingHeap(input, 'ndjson');
    console.info(
      `1M NDJSON lines: ${result.seconds.toFixed(2)} s, peak heap growth ${(result.peakGrowth / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(result.pets).toBe(LINES);
    expect(result.lastLine).toBe(LINES);
    expect(result.lastCategoryId).toBe(BigInt(LINES - 1));
    expect(result.peakGrowth).toBeLessThan(MAX_GROWTH_BYTES);
    expect(result.keptGrowth).toBeLessThan(MAX_GROWTH_BYTES);
  });

  it('reads 1,000,000 CSV rows without growing the heap', async () => {
    const input = generated(
      'name,categoryId,status\r\n',
      (index) => `"p, ${index}",${index},sold\r\n`,
    );
    const result = await readCountingHeap(input, 'csv');
    console.info(
      `1M CSV rows: ${result.seconds.toFixed(2)} s, peak heap growth ${(result.peakGrowth / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(result.pets).toBe(LINES);
    expect(result.lastLine).toBe(LINES + 1);
    expect(result.peakGrowth).toBeLessThan(MAX_GROWTH_BYTES);
    expect(result.keptGrowth).toBeLessThan(MAX_GROWTH_BYTES);
  });
});
