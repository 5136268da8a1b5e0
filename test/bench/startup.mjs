// Start-up cost: each command as a ratio to `node -e 0`, timed interleaved in one run, median
// of N runs. `pets list --json` talks to a sandbox running in another process, with the key
// from a profile, as a user's script would. For comparison, the same request made by undici
// alone (the least pets can cost, given undici), by Node's http client alone, and by curl.
//   node test/bench/startup.mjs [runs=21]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 21);
const bin = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'pets-startup-'));
const env = { PATH: process.env.PATH, HOME: home, PETS_CONFIG_DIR: join(home, 'config') };

const sandbox = spawn(
  process.execPath,
  [bin, 'sandbox', '--plan', 'unlimited', '--save-profile', 'bench', '--json'],
  { env },
);
const info = await new Promise((resolve, reject) => {
  let out = '';
  sandbox.stdout.setEncoding('utf8').on('data', (text) => {
    out += text;
    if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
  });
  sandbox.on('exit', (code) => reject(new Error(`sandbox exited (${code})`)));
});
execFileSync(process.execPath, [bin, 'profile', 'use', 'bench'], { env, stdio: 'ignore' });

const cases = [
  ['node -e 0', process.execPath, ['-e', '0']],
  ['pets --version', process.execPath, [bin, '--version']],
  ['pets --help', process.execPath, [bin, '--help']],
  ['pets list --json', process.execPath, [bin, 'list', '--json']],
  ['pets list --jq .[0].id', process.execPath, [bin, 'list', '--jq', '.[0].id']],
  [
    "jq's load alone: dist/vendor/jq.js, jq.wasm, one filter (see jq-load.cjs)",
    process.execPath,
    [fileURLToPath(new URL('jq-load.cjs', import.meta.url))],
  ],
  [
    'pets list --json, compile cache off',
    process.execPath,
    [bin, 'list', '--json'],
    { NODE_DISABLE_COMPILE_CACHE: '1' },
  ],
  [
    'undici alone, same request (see undici-request.cjs)',
    process.execPath,
    [fileURLToPath(new URL('undici-request.cjs', import.meta.url)), info.baseUrl],
    { PETS_API_KEY: info.key, UNDICI_CACHE: join(home, 'undici-cache') },
  ],
  [
    'node:http alone, same request (see node-http-request.cjs)',
    process.execPath,
    [fileURLToPath(new URL('node-http-request.cjs', import.meta.url)), info.baseUrl],
    { PETS_API_KEY: info.key },
  ],
  [
    'curl, same request',
    'curl',
    ['-sf', '-H', `Authorization: Bearer ${info.key}`, `${info.baseUrl}/pets`],
  ],
];

function time(file, args, extraEnv = {}) {
  const started = process.hrtime.bigint();
  execFileSync(file, args, { env: { ...env, ...extraEnv }, stdio: 'ignore' });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

// One run of each first: it warms the file cache and fills pets's compile cache, as the
// first of a script's thousands of runs would.
for (const [, file, args, extraEnv] of cases) time(file, args, extraEnv);
const samples = cases.map(() => []);
for (let i = 0; i < runs; i++)
  cases.forEach(([, file, args, extraEnv], c) => samples[c].push(time(file, args, extraEnv)));
sandbox.kill('SIGINT');
// It writes its compile cache as it exits, so wait before removing the folder.
await new Promise((resolve) => sandbox.on('exit', resolve));
rmSync(home, { recursive: true, force: true });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(samples[0]);
console.log(`| command (median of ${runs}) | ms | ratio to node -e 0 |`);
console.log('|---|---|---|');
cases.forEach(([name], c) => {
  const ms = median(samples[c]);
  console.log(`| ${name} | ${ms.toFixed(0)} | ${(ms / base).toFixed(2)} |`);
});
// --jq should cost list --json plus jq's load, and no more.
const row = (prefix) => median(samples[cases.findIndex(([name]) => name.startsWith(prefix))]);
const jqLoad = row("jq's load alone") - base;
const jqExtra = row('pets list --jq') - row('pets list --json');
console.log(
  `\nlist --jq over list --json: ${jqExtra.toFixed(0)} ms; jq's load over node -e 0: ` +
    `${jqLoad.toFixed(0)} ms (ratio ${(jqExtra / jqLoad).toFixed(2)}; at most ~1 is the aim)`,
);
