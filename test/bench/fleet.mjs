// The fleet figure: N machines (separate pets processes, each with its own config and state
// folders) import 60 records each on one key of a free-plan sandbox (60 a window, on the real
// clock; the sandbox bans a key that sends during a 429's wait), with and without a rate
// store shared through a real redis-server (persistence off, a free port). The figure is the
// time from the first request that arrived to the last, against the least the quota allows
// for all the records (the last window they need opens (windows - 1) windows after the
// first), and the 429s the sandbox answered.
// The window is 5 s rather than a minute (PETS_BENCH_WINDOW_S=60 runs the real minute). The
// sandbox opens a window at the first request after the last ended, and tells its Reset to
// the second, rounded up: each window after the first opens up to a second late, which weighs
// on a 5 s window (measured with a store: 1.13-1.19× with 3 machines, 1.19-1.21× with 10,
// about a second a window; 0 × 429).
//   node test/bench/fleet.mjs [machines=3,10] [trials=1]
// Needs redis-server on PATH (Debian's redis-server package); without it, only the runs
// without a store.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const sizes = (process.argv[2] ?? '3,10').split(',').map(Number);
const trials = Number(process.argv[3] ?? 1);
const EACH = 60;
const PER_WINDOW = 60;
const WINDOW_MS = Number(process.env.PETS_BENCH_WINDOW_S ?? 5) * 1000;
const bin = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const { startSandbox } = await import('../../dist/sandbox/index.js');
const home = mkdtempSync(join(tmpdir(), 'pets-bench-fleet-'));
const haveRedis = spawnSync('redis-server', ['--version']).status === 0;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let tries = 0; tries < 200; tries++) {
    const up = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
    if (up.stdout?.trim() === 'PONG') break;
    await sleep(10);
  }
  return { url: `redis://127.0.0.1:${port}`, close: () => child.kill('SIGKILL') };
}

function runPets(args, env) {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env }, (error, _stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stderr }),
    );
  });
}

async function fleetRun(machines, withStore, trial) {
  const sandbox = await startSandbox({ plan: 'free', windowSeconds: WINDOW_MS / 1000 });
  const store = withStore ? await startRedis() : undefined;
  const runs = [];
  for (let m = 0; m < machines; m++) {
    const input = join(home, `${machines}-${withStore}-${trial}-${m}.ndjson`);
    const lines = Array.from({ length: EACH }, (_, i) =>
      JSON.stringify({ name: `M${m} ${i}`, categoryId: 1 }),
    );
    writeFileSync(input, `${lines.join('\n')}\n`);
    const env = {
      PATH: process.env.PATH,
      PETS_CONFIG_DIR: join(home, `config-${machines}-${withStore}-${trial}-${m}`),
      PETS_BASE_URL: sandbox.baseUrl,
      PETS_API_KEY: sandbox.key,
      PETS_PROFILE: 'staging',
      ...(store && { PETS_RATE_STORE: store.url }),
    };
    runs.push(runPets(['add', '--file', input, '-q', '--max-wait', '120'], env));
  }
  const done = await Promise.all(runs);
  store?.close();
  const log = sandbox.requestLog;
  const posts = log.filter((e) => e.method === 'POST' && e.status !== 429);
  const first = log[0]?.at ?? 0;
  const tookMs = (posts.at(-1)?.at ?? first) - first;
  const windows = Math.ceil((machines * EACH) / PER_WINDOW);
  const leastMs = (windows - 1) * WINDOW_MS;
  const created = sandbox.pets().length;
  const limited = log.filter((e) => e.status === 429).length;
  await sandbox.close();
  return { machines, withStore, tookMs, leastMs, created, limited, codes: done.map((r) => r.code) };
}

const rows = [];
for (const machines of sizes) {
  for (let trial = 1; trial <= trials; trial++) {
    if (haveRedis) rows.push(await fleetRun(machines, true, trial));
    rows.push(await fleetRun(machines, false, trial));
  }
}
rmSync(home, { recursive: true, force: true });

console.log(
  `| fleet: machines × ${EACH} records, one key, free plan (60 per ${WINDOW_MS / 1000} s) | store | first to last request (s) | least the quota allows (s) | ratio | 429s | created | exits |`,
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const ratio = r.created === r.machines * EACH ? (r.tookMs / r.leastMs).toFixed(3) : '-';
  console.log(
    `| ${r.machines} × ${EACH} | ${r.withStore ? 'redis' : 'none'} | ${(r.tookMs / 1000).toFixed(1)} | ${(r.leastMs / 1000).toFixed(1)} | ${ratio} | ${r.limited} | ${r.created} of ${r.machines * EACH} | ${[...new Set(r.codes)].join(', ')} |`,
  );
}
if (!haveRedis) console.log('redis-server is not installed: the runs with a store were skipped');
