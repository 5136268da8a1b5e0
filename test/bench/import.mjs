// A free-plan import as a new user runs it: 300 records, `pets add --file` with default
// options, against a free-plan sandbox (60 a window, on the real clock). It must finish in one
// command with no 429; the figure is its time against the least the quota allows (its floor):
// the window opens with the first request, so the last window the requests need opens
// (windows - 1) windows after the first request arrived. Target: <= 1.05x.
// It runs side by side on two keys: alone, and with a `pets list` on the same key a sixth of a
// window after the first request arrived (the window's burst is over, the import waits): the
// list's time to answer (target: < 5 s), and the import's time against the least its requests
// and the list's allow.
// The window is 5 s rather than a minute (PETS_BENCH_WINDOW_S=60 runs the contract's real
// minute, 4-5 minutes of wall time a trial): the same plan, twelve times faster, ~30 s a trial.
//   node test/bench/import.mjs [records=300] [trials=3]
//   PETS_BENCH_BIN=/path/to/bin/pets.js runs another build (a copy, so that a rebuild
//   meanwhile cannot change the code under test).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
const count = Number(process.argv[2] ?? 300);
const trials = Number(process.argv[3] ?? 3);
const bin =
  process.env.PETS_BENCH_BIN ?? fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const sandboxModule = process.env.PETS_BENCH_BIN
  ? join(process.env.PETS_BENCH_BIN, '../../dist/sandbox/index.js')
  : '../../dist/sandbox/index.js';
const { startSandbox } = await import(sandboxModule);
const home = mkdtempSync(join(tmpdir(), 'pets-bench-import-'));
const PER_WINDOW = 60;
const WINDOW_MS = Number(process.env.PETS_BENCH_WINDOW_S ?? 5) * 1000;

const records = `${Array.from({ length: count }, (_, i) => JSON.stringify({ name: `Import ${i}`, categoryId: 1 })).join('\n')}\n`;

/**
 * One import against a fresh free-plan sandbox; with `list`, a `pets list` on the same key
 * LIST_AFTER_MS after the first request arrived (the window's burst is over, the import
 * waits), timed from its start to its exit.
 */
async function importRun(list, trial) {
  const sandbox = await startSandbox({ plan: 'free', windowSeconds: WINDOW_MS / 1000 });
  // A file (and so a journal) of its own for each run.
  const input = join(home, `pets-${list ? 'list' : 'alone'}-${trial}.ndjson`);
  writeFileSync(input, records);
  const env = {
    PATH: process.env.PATH,
    PETS_CONFIG_DIR: join(home, `${list ? 'config-list' : 'config'}-${trial}`),
    PETS_BASE_URL: sandbox.baseUrl,
    PETS_API_KEY: sandbox.key,
    PETS_PROFILE: 'staging',
  };
  const started = Date.now();
  let code = 0;
  let stderr = '';
  let listMs;
  const listing = list
    ? (async () => {
        while (sandbox.requestLog.length === 0) await sleep(20);
        const wait = sandbox.requestLog[0].at + LIST_AFTER_MS - Date.now();
        await sleep(Math.max(0, wait));
        const listStarted = Date.now();
        await run(process.execPath, [bin, 'list', '--limit', '1'], { env });
        listMs = Date.now() - listStarted;
      })()
    : Promise.resolve();
  try {
    ({ stderr } = await run(process.execPath, [bin, 'add', '--file', input, '-q'], { env }));
  } catch (error) {
    code = error.code;
    stderr = error.stderr;
  }
  const elapsed = Date.now() - started;
  await listing;
  const log = sandbox.requestLog;
  const firstArrival = log[0]?.at ?? started;
  // The last window the requests need (the list's too) opens (windows - 1) windows after the
  // first arrival; the start-up before the first request is the process's, not the quota's.
  const windows = Math.ceil((count + (list ? 1 : 0)) / PER_WINDOW);
  const least = firstArrival - started + (windows - 1) * WINDOW_MS;
  // The sandbox tells each Reset to the second, rounded up: a client that waits for the Reset
  // it is told opens the next window up to a second after this one ended. The least such a
  // client can take, for the windows as they opened (replayed as the sandbox's fixed window
  // counts them): each window lasts from its first request to its Reset as told.
  let toldLeast = firstArrival - started;
  let endsAt = -Infinity;
  const opens = [];
  for (const entry of log.filter((e) => e.status !== 429)) {
    if (entry.at >= endsAt) {
      opens.push(entry.at);
      endsAt = entry.at + WINDOW_MS;
    }
  }
  for (const open of opens.slice(0, -1)) {
    toldLeast += Math.ceil((open + WINDOW_MS) / 1000) * 1000 - open;
  }
  const limited = log.filter((entry) => entry.status === 429).length;
  const created = sandbox.pets().length;
  // PETS_BENCH_LOG=1: when each window's creates arrived, from the first (where time goes).
  if (process.env.PETS_BENCH_LOG) {
    const groups = [];
    for (const entry of log.filter((e) => e.method === 'POST')) {
      const at = entry.at - firstArrival;
      const group = groups.at(-1);
      if (group && at - group.last < WINDOW_MS / 5) {
        group.last = at;
        group.count++;
      } else groups.push({ first: at, last: at, count: 1 });
    }
    console.error(
      `${list ? 'with a list' : 'alone'}: creates ${groups.map((g) => `${g.count} at ${g.first}-${g.last} ms`).join(', ')}; the list at ${log.filter((e) => e.method === 'GET').map((e) => e.at - firstArrival)} ms`,
    );
  }
  await sandbox.close();
  return { list, code, stderr, elapsed, least, toldLeast, windows, limited, created, listMs };
}

// Each on its own key, side by side; a fresh journal for each trial.
const LIST_AFTER_MS = Math.max(1_000, WINDOW_MS / 6);
const runs = [];
for (let trial = 1; trial <= trials; trial++) {
  runs.push(...(await Promise.all([importRun(false, trial), importRun(true, trial)])));
}
rmSync(home, { recursive: true, force: true });

const window = `${WINDOW_MS / 1000} s`;
console.log(
  `| case (${trials} trials) | pets (s) | least the quota allows (s) | ratio | least the Resets told allow (s) | ratio | \`pets list\` took (s) | exit | created | 429s |`,
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of runs) {
  console.log(
    `| ${count} records, free plan (60 per ${window}), default options${r.list ? `, a \`pets list\` ${LIST_AFTER_MS / 1000} s in` : ''} | ${(r.elapsed / 1000).toFixed(1)} | ${(r.least / 1000).toFixed(1)} | ${(r.elapsed / r.least).toFixed(3)} | ${(r.toldLeast / 1000).toFixed(1)} | ${(r.elapsed / r.toldLeast).toFixed(3)} | ${r.listMs === undefined ? '-' : (r.listMs / 1000).toFixed(2)} | ${r.code} | ${r.created} | ${r.limited} |`,
  );
  if (r.code !== 0) console.log(r.stderr);
}
// The time over the floor is mostly a constant per window: each Reset is told to the second
// (rounded up), so a window opens up to a second after the last one ended. It weighs 12 times
// less on a minute's window than on 5 s: both are shown.
const summary = (list) => {
  const cases = runs.filter((r) => r.list === list);
  const worst = cases.reduce((a, b) => (b.elapsed / b.least > a.elapsed / a.least ? b : a));
  const overPerWindow = (worst.elapsed - worst.least) / (worst.windows - 1);
  const toldWorst = Math.max(...cases.map((r) => r.elapsed / r.toldLeast));
  return `${(worst.elapsed / worst.least).toFixed(3)} (${((worst.elapsed - worst.least) / 1000).toFixed(1)} s over the floor of ${(worst.least / 1000).toFixed(1)} s, ${(overPerWindow / 1000).toFixed(2)} s a window); against the least the Resets as told allow, ${toldWorst.toFixed(3)}`;
};
const listTimes = runs.filter((r) => r.list).map((r) => r.listMs / 1000);
console.log(
  `\nbatch time / quota floor, the worst of ${trials} trials (target <= 1.05):\n` +
    `  alone: ${summary(false)}\n` +
    `  with a concurrent \`pets list\`: ${summary(true)}\n` +
    `the list's latency (target < 5 s): ${listTimes.map((t) => `${t.toFixed(2)} s`).join(', ')}`,
);
process.exitCode = runs.some((r) => r.code !== 0 || r.limited > 0 || r.created !== count) ? 1 : 0;
