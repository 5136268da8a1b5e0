// Batch benchmarks for `pets add --file`, measured in one run, printed as a table:
//  - rate-limited throughput: 600 records against 300 per 10 s window, as a ratio of the
//    least possible time (the second window opens 10 s after the first request) to pets's;
//  - unpaced throughput (plan unlimited) as a ratio to a plain undici loop at the same
//    concurrency, and the client CPU per request of each;
//  - peak RSS of a 200,000-line NDJSON import.
//   node test/bench/batch.mjs [paced=600] [unpaced=10000] [rss=200000]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSandbox } from '../../dist/sandbox/index.js';

const run = promisify(execFile);
const [pacedCount = 600, unpacedCount = 10_000, rssCount = 200_000] = process.argv
  .slice(2)
  .map(Number);
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const bin = here('../../bin/pets.js');
const home = mkdtempSync(join(tmpdir(), 'pets-bench-'));
const CONCURRENCY = 8;

function records(count, prefix) {
  const path = join(home, `${prefix}-${count}.ndjson`);
  const lines = [];
  for (let i = 0; i < count; i++)
    lines.push(JSON.stringify({ name: `${prefix} ${i}`, categoryId: i % 50, status: 'available' }));
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function timed(file, args, env) {
  const started = process.hrtime.bigint();
  const result = await run(process.execPath, [file, ...args], { env, maxBuffer: 64 * 1024 * 1024 });
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, ...result };
}

function envFor(sandbox) {
  return {
    PATH: process.env.PATH,
    PETS_CONFIG_DIR: mkdtempSync(join(home, 'config-')),
    // production is protected and would ask before a batch; the benchmark measures batches.
    PETS_PROFILE: 'staging',
    PETS_BASE_URL: sandbox.baseUrl,
    PETS_API_KEY: sandbox.key,
  };
}

const rows = [];

// Rate limited: 600 records against 300 per window of 10 s, which opens with the first request.
// pets spends each window's budget at once, so the least possible time is the wait for the
// last window needed to open: (windows needed − 1) windows.
{
  const limit = 300;
  const windowSeconds = 10;
  const sandbox = await startSandbox({ plan: 'free', rpm: limit, rpd: 1_000_000, windowSeconds });
  const file = records(pacedCount, 'paced');
  const { seconds } = await timed(bin, ['add', '--file', file, '-q'], envFor(sandbox));
  const answers = sandbox.requestLog;
  const tooMany = answers.filter((a) => a.status === 429).length;
  const created = sandbox.pets().length;
  await sandbox.close();
  const leastSeconds = (Math.ceil(pacedCount / limit) - 1) * windowSeconds;
  rows.push([
    `rate limited, ${limit} per ${windowSeconds} s`,
    `${created} records in ${seconds.toFixed(1)} s (least possible ${leastSeconds} s)`,
    leastSeconds > 0 ? `${(leastSeconds / seconds).toFixed(3)} of the least possible time` : '—',
  ]);
  rows.push(['429 answers while rate limited', String(tooMany), tooMany === 0 ? 'ok' : 'FAIL']);
}

// Unpaced: pets vs a plain undici loop, same records, same concurrency, fresh sandbox each.
{
  const file = records(unpacedCount, 'unpaced');
  const sandboxA = await startSandbox({ plan: 'unlimited' });
  const raw = await timed(
    here('raw-undici-loop.mjs'),
    [sandboxA.baseUrl, sandboxA.key, file, String(CONCURRENCY)],
    // The same bare environment as pets gets: inherited variables such as
    // NODE_EXTRA_CA_CERTS would slow one side's start-up only.
    { PATH: process.env.PATH },
  );
  await sandboxA.close();
  const sandboxB = await startSandbox({ plan: 'unlimited' });
  const pets = await timed(
    here('with-peak-rss.mjs'),
    ['add', '--file', file, '-q', '--concurrency', String(CONCURRENCY)],
    envFor(sandboxB),
  );
  const created = sandboxB.pets().length;
  await sandboxB.close();
  const rawRate = unpacedCount / raw.seconds;
  const petsRate = created / pets.seconds;
  rows.push([
    'raw undici loop, unlimited',
    `${rawRate.toFixed(0)}/s (${unpacedCount} in ${raw.seconds.toFixed(1)} s)`,
    '1.000',
  ]);
  rows.push([
    'pets add --file, unlimited',
    `${petsRate.toFixed(0)}/s (${created} in ${pets.seconds.toFixed(1)} s)`,
    `${(petsRate / rawRate).toFixed(3)} of the raw loop`,
  ]);
  const cpuPerRequest = (result, count) => Number(/cpu-us (\d+)/.exec(result.stderr)?.[1]) / count;
  const rawCpu = cpuPerRequest(raw, unpacedCount);
  const petsCpu = cpuPerRequest(pets, created);
  rows.push([
    'client CPU per request, unlimited',
    `pets ${petsCpu.toFixed(0)} µs, raw loop ${rawCpu.toFixed(0)} µs (start-up included)`,
    `${(petsCpu / rawCpu).toFixed(2)}× the raw loop`,
  ]);
}

// Memory: a 200,000-line import, peak RSS of the pets process itself.
{
  const sandbox = await startSandbox({ plan: 'unlimited' });
  const file = records(rssCount, 'rss');
  const result = await timed(
    here('with-peak-rss.mjs'),
    ['add', '--file', file, '-q', '--concurrency', String(CONCURRENCY)],
    envFor(sandbox),
  );
  const kib = Number(/peak-rss-kib (\d+)/.exec(result.stderr)?.[1]);
  const created = sandbox.pets().length;
  // The same command again: everything is in the journal, and is skipped.
  const resumed = await timed(
    here('with-peak-rss.mjs'),
    ['add', '--file', file, '-q', '--concurrency', String(CONCURRENCY)],
    envFor(sandbox),
  );
  const resumeKib = Number(/peak-rss-kib (\d+)/.exec(resumed.stderr)?.[1]);
  await sandbox.close();
  rows.push([
    `peak RSS, ${rssCount}-line NDJSON import`,
    `${(kib / 1024).toFixed(0)} MB (${created} created in ${result.seconds.toFixed(0)} s)`,
    `${(kib / 1024 / 150).toFixed(3)} of the 150 MB budget`,
  ]);
  rows.push([
    `peak RSS, resuming it (all ${rssCount} in the journal)`,
    `${(resumeKib / 1024).toFixed(0)} MB in ${resumed.seconds.toFixed(1)} s`,
    `${(resumeKib / 1024 / 150).toFixed(3)} of the 150 MB budget`,
  ]);
}

rmSync(home, { recursive: true, force: true });
console.log('| measure | value | ratio |');
console.log('|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
