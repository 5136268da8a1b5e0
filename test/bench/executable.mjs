// The single executable against the npm install: its size, and its start-up as a ratio to
// bin/pets.js run by the same Node (node_modules/node's, which the executable embeds), timed
// interleaved in one run, median of N runs. The npm install keeps its compile cache warm, as
// a script's thousands of runs would; the executable carries V8's code for its script.
// `pets list --json` talks to a sandbox in another process, with the key from a profile.
//   npm run package && node test/bench/executable.mjs [runs=21]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 21);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/pets.js');
const exe = join(root, `dist/pets-${process.platform}-${process.arch}`);
if (!existsSync(exe)) throw new Error(`no ${exe}: run npm run package first`);
const home = mkdtempSync(join(tmpdir(), 'pets-exe-bench-'));
const env = { PATH: process.env.PATH, HOME: home, PETS_CONFIG_DIR: join(home, 'config') };

const sandbox = spawn(
  process.execPath,
  [bin, 'sandbox', '--plan', 'unlimited', '--save-profile', 'bench', '--json'],
  { env },
);
await new Promise((resolve, reject) => {
  let out = '';
  sandbox.stdout.setEncoding('utf8').on('data', (text) => {
    out += text;
    if (out.includes('\n')) resolve();
  });
  sandbox.on('exit', (code) => reject(new Error(`sandbox exited (${code})`)));
});
execFileSync(process.execPath, [bin, 'profile', 'use', 'bench'], { env, stdio: 'ignore' });

const commands = [['--version'], ['--help'], ['list', '--json']];
const cases = commands.flatMap((args) => [
  [`npm install   pets ${args.join(' ')}`, process.execPath, [bin, ...args]],
  [`executable    pets ${args.join(' ')}`, exe, args],
]);

function time(file, args) {
  const started = process.hrtime.bigint();
  execFileSync(file, args, { env, stdio: 'ignore' });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

for (const [, file, args] of cases) time(file, args); // warm: file cache, compile cache
const samples = cases.map(() => []);
for (let i = 0; i < runs; i++)
  cases.forEach(([, file, args], c) => samples[c].push(time(file, args)));
sandbox.kill('SIGINT');
await new Promise((resolve) => sandbox.on('exit', resolve));
rmSync(home, { recursive: true, force: true });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const packed = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }),
)[0];
console.log(`Single executable, Node ${process.versions.node}, median of ${runs} interleaved runs`);
console.log(`  size: the executable ${mib(statSync(exe).size)}`);
console.log(`        the npm package ${mib(packed.unpackedSize)} installed,`);
console.log(`        and the Node it needs (${mib(statSync(process.execPath).size)})`);
for (let c = 0; c < cases.length; c += 2) {
  const npm = median(samples[c]);
  const own = median(samples[c + 1]);
  console.log(`  ${cases[c][0]}  ${npm.toFixed(1)} ms`);
  console.log(`  ${cases[c + 1][0]}  ${own.toFixed(1)} ms  (${(own / npm).toFixed(2)}x)`);
}
