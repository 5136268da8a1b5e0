// Start-up cost: each command as a ratio to `node -e 0`, timed interleaved in one run, median
// of N runs. `pets list --json` talks to a sandbox running in another process, with the key
// from a profile, as a user's script would. For comparison, the same request made by undici
// alone (the least pets can cost, given undici), by Node's http client alone, and by curl.
// Users reach the API over https: `pets list --json` also goes through a local TLS server
// with a private CA, against the floor, a bare node:https GET that prints the body. And
// through a forward proxy (test/helpers/forward-proxy.ts): https in a CONNECT tunnel, http in
// absolute form, and with HTTPS_PROXY set for an http URL it does not serve (the variable's
// cost alone: undici's ProxyAgent loads only when a request goes through a proxy).
//   node test/bench/startup.mjs [runs=21]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
const tls = await startTls(new URL(info.baseUrl).port);
const https = { PETS_BASE_URL: tls.baseUrl, NODE_EXTRA_CA_CERTS: tls.caFile };
const forwardProxy = spawn(process.execPath, [
  '--input-type=module',
  '-e',
  `import { startForwardProxy } from ${JSON.stringify(fileURLToPath(new URL('../helpers/forward-proxy.ts', import.meta.url)))};
   console.log((await startForwardProxy()).url);`,
]);
const proxyUrl = await new Promise((resolve, reject) => {
  forwardProxy.stdout.setEncoding('utf8').once('data', (text) => resolve(text.trim()));
  forwardProxy.on('exit', (code) => reject(new Error(`forward proxy exited (${code})`)));
});

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
    'node:http alone, same request (see node-request.cjs)',
    process.execPath,
    [fileURLToPath(new URL('node-request.cjs', import.meta.url)), info.baseUrl],
    { PETS_API_KEY: info.key },
  ],
  ['pets list --json, https', process.execPath, [bin, 'list', '--json'], https],
  [
    'pets list --json, https through HTTPS_PROXY (CONNECT)',
    process.execPath,
    [bin, 'list', '--json'],
    { ...https, HTTPS_PROXY: proxyUrl },
  ],
  [
    'pets list --json, http through HTTP_PROXY (absolute form)',
    process.execPath,
    [bin, 'list', '--json'],
    { HTTP_PROXY: proxyUrl },
  ],
  [
    'pets list --json, HTTPS_PROXY set, http not through it',
    process.execPath,
    [bin, 'list', '--json'],
    { HTTPS_PROXY: proxyUrl },
  ],
  [
    'node:https alone, same request (see node-request.cjs)',
    process.execPath,
    [fileURLToPath(new URL('node-request.cjs', import.meta.url)), tls.baseUrl],
    { ...https, PETS_API_KEY: info.key },
  ],
  [
    'curl, same request',
    'curl',
    ['-sf', '-H', `Authorization: Bearer ${info.key}`, `${info.baseUrl}/pets`],
  ],
];

/** A private CA, and a TLS server on loopback that hands each connection to the sandbox. */
async function startTls(port) {
  const dir = join(home, 'tls');
  const openssl = (...args) => execFileSync('openssl', args, { cwd: home, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  mkdirSync(dir);
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'tls/ca.key',
    '-out',
    'tls/ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=pets bench CA',
  );
  openssl(
    'req',
    ...ec,
    '-keyout',
    'tls/leaf.key',
    '-out',
    'tls/leaf.csr',
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(join(dir, 'leaf.ext'), 'subjectAltName=DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'tls/leaf.csr',
    '-CA',
    'tls/ca.pem',
    '-CAkey',
    'tls/ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'tls/leaf.ext',
    '-out',
    'tls/leaf.pem',
  );
  const server = spawn(process.execPath, [
    fileURLToPath(new URL('tls-proxy.cjs', import.meta.url)),
    port,
    join(dir, 'leaf.key'),
    join(dir, 'leaf.pem'),
  ]);
  const tlsPort = await new Promise((resolve, reject) => {
    server.stdout.setEncoding('utf8').once('data', (text) => resolve(text.trim()));
    server.on('exit', (code) => reject(new Error(`TLS server exited (${code})`)));
  });
  return {
    server,
    caFile: join(dir, 'ca.pem'),
    baseUrl: `https://localhost:${tlsPort}/v1`,
  };
}

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
tls.server.kill();
forwardProxy.kill();
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
// pets against the least the same request can cost in Node, from the same interleaved runs.
const toFloor = (pets, floor) => (row(pets) / row(floor)).toFixed(2);
console.log(
  `\npets list --json over https / node:https alone: ${toFloor('pets list --json, https', 'node:https')}`,
);
console.log(
  `pets list --json over http / node:http alone: ${toFloor('pets list --json', 'node:http alone')}`,
);
console.log(
  `https through the proxy / https straight: ${toFloor('pets list --json, https through', 'pets list --json, https')}; ` +
    `http through it / straight: ${toFloor('pets list --json, http through', 'pets list --json')}; ` +
    `HTTPS_PROXY set, not used / unset: ${toFloor('pets list --json, HTTPS_PROXY set', 'pets list --json')}`,
);
