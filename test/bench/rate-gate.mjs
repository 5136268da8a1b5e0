// How fast the rate gate lets work through, as ratios measured in one run, each with its 429s:
//   1. 100 creates with 300 requests left, against the same with no limit (the unlimited
//      plan, which states a limit no client reaches), and against a bare server that sends
//      no rate-limit headers at all (the gate then writes nothing);
//   2. 20 `pets list` in a loop with 60 left, against no limit;
//   3. 60 creates on a 30-per-10 s window aligned to the clock, against its least possible time;
//   4. 3 concurrent batches and a loop of `pets list` on one key, against the least possible.
// Cases 3 and 4 wait for real windows: about half a minute in all.
//   node test/bench/rate-gate.mjs
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { performance } from 'node:perf_hooks';
import { startSandbox } from '../../dist/sandbox/index.js';
import { startStrictServer } from '../helpers/strict-server.ts';
import { sendJson, startFaultServer } from '../helpers/fault-server.ts';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'pets-bench-'));
let folders = 0;

function records(count, prefix) {
  const path = join(home, `${prefix}-${folders++}.ndjson`);
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ name: `${prefix} ${i}`, categoryId: 1 }),
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function envFor(server) {
  return {
    PATH: process.env.PATH,
    PETS_CONFIG_DIR: join(home, `config-${folders++}`),
    PETS_BASE_URL: server.baseUrl,
    PETS_API_KEY: server.key,
    PETS_PROFILE: 'staging',
  };
}

async function pets(args, env) {
  await run(process.execPath, [bin, ...args], { env }).catch((error) => {
    throw new Error(`pets ${args.join(' ')} exited ${error.code}: ${error.stderr}`);
  });
}

async function timed(work) {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const count429 = (sandbox) => sandbox.requestLog.filter((entry) => entry.status === 429).length;
const rows = [];

// The first runs of the binary fill the compile cache: let that happen before anything is timed.
{
  const warm = await startSandbox({ plan: 'unlimited' });
  for (let i = 0; i < 3; i++) await pets(['list', '--json'], envFor(warm));
  await warm.close();
}

// 1 and 2: against the sandbox, with a budget that covers the work, and with no limit.
for (const [name, plan, work] of [
  ['100 creates, 300 left', 'pro', (env) => pets(['add', '--file', records(100, 'c'), '-q'], env)],
  [
    '20 `pets list` in a loop, 60 left',
    'free',
    async (env) => {
      for (let i = 0; i < 20; i++) await pets(['list', '--json'], env);
    },
  ],
]) {
  const limited = await startSandbox({ plan });
  const free = await startSandbox({ plan: 'unlimited' });
  const withLimit = await timed(() => work(envFor(limited)));
  const without = await timed(() => work(envFor(free)));
  rows.push([name, 'no limit', withLimit, without, count429(limited)]);
  await Promise.all([limited.close(), free.close()]);
}

// 1b: the same 100 creates against a bare server that states no limit, interleaved with the
// 300-left runs, medians of 5: the gate's whole cost when it has a window to keep.
{
  const bare = await startFaultServer();
  let id = 0;
  bare.handle((_req, res) => sendJson(res, 201, `{"id":${++id},"name":"c","categoryId":1}`));
  const bareServer = { baseUrl: bare.baseUrl, key: 'bench_bare_key_0001' };
  const limitedTimes = [];
  const bareTimes = [];
  let limited429 = 0;
  for (let i = 0; i < 5; i++) {
    const limited = await startSandbox({ plan: 'pro' });
    limitedTimes.push(
      await timed(() => pets(['add', '--file', records(100, 'c'), '-q'], envFor(limited))),
    );
    bareTimes.push(
      await timed(() => pets(['add', '--file', records(100, 'c'), '-q'], envFor(bareServer))),
    );
    limited429 += count429(limited);
    await limited.close();
  }
  const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  rows.push([
    '100 creates, 300 left (median of 5)',
    'no rate-limit headers',
    median(limitedTimes),
    median(bareTimes),
    limited429,
  ]);
  await bare.close();
}

/**
 * From `startMs`, when the `n`th request can go on a window aligned to `windowMs`, once the
 * first request has reached the server: the time a process takes to start and send its first
 * request is not the limit's, so windows are counted from that first arrival.
 */
function leastTime(startMs, server, limit, windowMs, n) {
  const firstArrival = server.requests[0]?.at ?? startMs;
  const windowsAfterFirst = Math.ceil(n / limit) - 1;
  if (windowsAfterFirst === 0) return firstArrival - startMs;
  const firstEnds = Math.ceil((firstArrival + 1) / windowMs) * windowMs;
  return firstEnds + (windowsAfterFirst - 1) * windowMs - startMs;
}

// 3: 60 creates on a 30-per-10 s window.
{
  const server = await startStrictServer({ limit: 30, windowMs: 10_000 });
  const start = Date.now();
  const elapsed = await timed(() =>
    pets(['add', '--file', records(60, 'w'), '-q'], envFor(server)),
  );
  const least = leastTime(start, server, 30, 10_000, 60);
  rows.push([
    '60 creates, 30 per 10 s aligned',
    'least possible',
    elapsed,
    least,
    server.limited(),
  ]);
  await server.close();
}

// 4: three batches of 30 and a loop of 20 lists, on one key and one state, 40 per 5 s.
{
  const server = await startStrictServer({ limit: 40, windowMs: 5_000 });
  const env = envFor(server);
  const start = Date.now();
  const elapsed = await timed(() =>
    Promise.all([
      ...[0, 1, 2].map(() => pets(['add', '--file', records(30, 'b'), '-q'], env)),
      (async () => {
        for (let i = 0; i < 20; i++) await pets(['list', '--json'], env);
      })(),
    ]),
  );
  const least = leastTime(start, server, 40, 5_000, 110);
  rows.push([
    '3 batches and a loop, one key, 40 per 5 s',
    'least possible',
    elapsed,
    least,
    server.limited(),
  ]);
  await server.close();
}
rmSync(home, { recursive: true, force: true });

console.log('| case | against | pets (s) | reference (s) | ratio | 429s |');
console.log('|---|---|---|---|---|---|');
for (const [name, against, ms, referenceMs, limited] of rows) {
  const ratio = referenceMs > 0 ? (ms / referenceMs).toFixed(2) : '—';
  console.log(
    `| ${name} | ${against} | ${(ms / 1000).toFixed(2)} | ${(referenceMs / 1000).toFixed(2)} | ${ratio} | ${limited} |`,
  );
}
process.exitCode = rows.some((row) => row[4] > 0) ? 1 : 0;
