// This build against another commit's, measured in one run: start-up, the burst and the
// import, each case timed for both builds in turn (interleaved, so that a noisy machine weighs
// on both alike), and reported as medians with the ratio this/that.
//   start-up: `pets --version`, `pets --help`, `pets list --json` against a sandbox;
//   the burst: `pets add --file` of 100 records on an unlimited plan (nothing waits);
//   the import: 300 records on the free plan (60 a 5 s window), whose floor is the quota's.
// The other commit is built in a git worktree of its own (the dependencies as installed here).
//   npm run build && node test/bench/against.mjs REV [runs=15] [import trials=3]
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { startSandbox } from '../../dist/sandbox/index.js';

const [rev = 'HEAD~1', runsArg = '15', trialsArg = '3'] = process.argv.slice(2);
const runs = Number(runsArg);
const trials = Number(trialsArg);
const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'pets-against-'));

const otherTree = join(home, 'other');
execFileSync('git', ['-C', repo, 'worktree', 'add', '--detach', otherTree, rev], {
  stdio: 'ignore',
});
symlinkSync(join(repo, 'node_modules'), join(otherTree, 'node_modules'));
execFileSync('npm', ['run', '-s', 'build'], { cwd: otherTree, stdio: 'ignore' });
const commit = (tree) =>
  execFileSync('git', ['-C', tree, 'log', '--format=%h', '-1'], { encoding: 'utf8' }).trim();
const builds = [
  { name: `this (${commit(repo)})`, bin: join(repo, 'bin/pets.js') },
  { name: `${rev} (${commit(otherTree)})`, bin: join(otherTree, 'bin/pets.js') },
];

let folders = 0;
function freshEnv(sandbox) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    PETS_CONFIG_DIR: join(home, `config-${folders++}`),
    PETS_BASE_URL: sandbox.baseUrl,
    PETS_API_KEY: sandbox.key,
    PETS_PROFILE: 'staging',
  };
}

function recordsFile(count) {
  const path = join(home, `records-${folders++}.ndjson`);
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ name: `Bench ${i}`, categoryId: 1 }),
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function timed(bin, args, env) {
  const started = performance.now();
  await run(process.execPath, [bin, ...args], { env });
  return performance.now() - started;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const unlimited = await startSandbox({ plan: 'unlimited' });
const listEnv = freshEnv(unlimited);
const cases = [
  ['pets --version', () => ['--version'], () => listEnv],
  ['pets --help', () => ['--help'], () => listEnv],
  ['pets list --json', () => ['list', '--json'], () => listEnv],
  // A new input (so a new journal) and a new config folder each run: nothing resumes.
  [
    'burst: add --file, 100 records',
    () => ['add', '--file', recordsFile(100), '-q'],
    () => freshEnv(unlimited),
  ],
];

console.log(
  `| case (median of ${runs}) | ${builds[0].name} ms | ${builds[1].name} ms | this/that |`,
);
console.log('|---|---|---|---|');
for (const [name, args, env] of cases) {
  for (const build of builds) await timed(build.bin, args(), env()); // fills the compile cache
  const times = builds.map(() => []);
  for (let i = 0; i < runs; i++) {
    // Alternate which build goes first, so that neither always runs on a warmer machine.
    const order = i % 2 ? [1, 0] : [0, 1];
    for (const b of order) times[b].push(await timed(builds[b].bin, args(), env()));
  }
  const [mine, theirs] = times.map(median);
  console.log(
    `| ${name} | ${mine.toFixed(0)} | ${theirs.toFixed(0)} | ${(mine / theirs).toFixed(3)} |`,
  );
}
await unlimited.close();

// The import: its time from start to exit, against the quota's floor for the same run (the
// last window the records need opens (windows - 1) windows after the first request arrived).
const WINDOW_MS = 5_000;
const PER_WINDOW = 60;
const IMPORTED = 300;
async function importRun(bin) {
  const sandbox = await startSandbox({ plan: 'free', windowSeconds: WINDOW_MS / 1000 });
  try {
    const started = performance.now();
    const startedAt = Date.now();
    await run(process.execPath, [bin, 'add', '--file', recordsFile(IMPORTED), '-q'], {
      env: freshEnv(sandbox),
    });
    const elapsed = performance.now() - started;
    const first = sandbox.requestLog[0].at;
    const least = first - startedAt + (Math.ceil(IMPORTED / PER_WINDOW) - 1) * WINDOW_MS;
    const limited = sandbox.requestLog.filter((entry) => entry.status === 429).length;
    return { ratio: elapsed / least, limited, created: sandbox.pets().length };
  } finally {
    await sandbox.close();
  }
}
const imports = builds.map(() => []);
for (let trial = 0; trial < trials; trial++) {
  for (const b of trial % 2 ? [1, 0] : [0, 1]) imports[b].push(await importRun(builds[b].bin));
}
const summary = (list) =>
  `${median(list.map((r) => r.ratio)).toFixed(3)}× the floor (${list.map((r) => `${r.created} created, ${r.limited} × 429`).join('; ')})`;
console.log(
  `| import: ${IMPORTED} records, free plan, ${trials} trials | ${summary(imports[0])} | ${summary(imports[1])} | ${(median(imports[0].map((r) => r.ratio)) / median(imports[1].map((r) => r.ratio))).toFixed(3)} |`,
);

execFileSync('git', ['-C', repo, 'worktree', 'remove', '--force', otherTree], { stdio: 'ignore' });
rmSync(home, { recursive: true, force: true });
