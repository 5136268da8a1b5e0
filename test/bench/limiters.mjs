// Real rate limiters from npm (test/helpers/real-limiters.ts: express-rate-limit in each
// header mode, @fastify/rate-limit, koa-ratelimit, hono-rate-limiter, rate-limiter-flexible),
// each in front of the contract's operations in memory: a 60-record `pets add --file` at 20
// requests per 20 s (PETS_BENCH_WINDOW_S=10 for 10 s windows, where a Reset in whole Unix
// seconds costs up to a second a window: 1.07-1.11x for legacy and rate-limiter-flexible). The figures come from each server's own log: its 429s, and the time from
// its first accepted request to its last, against the least the limit allows (the last window
// the records need opens two windows after the first). The limiters run side by side.
//   node test/bench/limiters.mjs [trials=1]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, LIMITERS, measure, plainContract } from '../helpers/real-limiters.ts';
import { nginxMissing, startNginx } from '../helpers/nginx.ts';

const trials = Number(process.argv[2] ?? 1);
const SETTINGS = { limit: 20, windowMs: Number(process.env.PETS_BENCH_WINDOW_S ?? 20) * 1000 };
const RECORDS = 60;
const bin = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));

function runPets(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** nginx limit_req at 2 r/s, burst=0, no rate headers: pets learns the rate from 429s. */
const NGINX_RATE = 2;
async function startNginxServer() {
  const folder = mkdtempSync(join(tmpdir(), 'pets-bench-nginx-'));
  const nginx = await startNginx(folder, NGINX_RATE, await plainContract(), await freePort());
  const server = {
    ...nginx,
    close: () => nginx.close().then(() => rmSync(folder, { recursive: true })),
  };
  Object.defineProperty(server, 'log', { get: () => nginx.log() });
  return server;
}
function measureNginx(server) {
  const log = server.log;
  const accepted = log.filter((entry) => entry.status !== 429);
  const spanMs = accepted.at(-1).at - accepted[0].at;
  const leastMs = ((accepted.length - 1) * 1000) / NGINX_RATE;
  return {
    limited: log.filter((entry) => entry.status === 429).length,
    forbidden: log.filter((entry) => entry.status === 403).length,
    ratio: spanMs / leastMs,
  };
}

async function importOnce(name) {
  const nginx = name === NGINX_ROW;
  const server = nginx ? await startNginxServer() : await LIMITERS[name](SETTINGS);
  try {
    const home = mkdtempSync(join(tmpdir(), 'pets-bench-limiters-'));
    const input = join(home, 'records.ndjson');
    const lines = Array.from({ length: RECORDS }, (_, i) =>
      JSON.stringify({ name: `pet ${i}`, categoryId: 1 }),
    );
    writeFileSync(input, lines.join('\n'));
    const env = {
      PETS_CONFIG_DIR: join(home, 'config'),
      PETS_BASE_URL: server.baseUrl,
      PETS_API_KEY: server.key,
      PETS_PROFILE: 'staging',
    };
    const run = await runPets(['add', '--file', input, '-q'], env);
    const createdOnce = [...server.created.values()].filter((count) => count === 1).length;
    const measured = nginx ? measureNginx(server) : measure(server, SETTINGS);
    return { ...measured, code: run.code, createdOnce };
  } finally {
    await server.close();
  }
}

const NGINX_ROW = `nginx limit_req ${NGINX_RATE} r/s, no headers`;
if (nginxMissing) console.log(`no nginx row: ${nginxMissing}`);
const names = [...Object.keys(LIMITERS), ...(nginxMissing ? [] : [NGINX_ROW])];
const results = new Map(names.map((name) => [name, []]));
for (let trial = 0; trial < trials; trial++) {
  const runs = await Promise.all(names.map((name) => importOnce(name)));
  runs.forEach((run, i) => results.get(names[i]).push(run));
}

console.log(
  `\nReal limiters: a ${RECORDS}-record import at ${SETTINGS.limit} per ${SETTINGS.windowMs / 1000} s, ${trials} trial(s) each`,
);
console.log('| limiter | exits | 429s | 403s | created once | time / least time |');
console.log('|---|---|---|---|---|---|');
for (const [name, runs] of results) {
  const ratios = runs.map((run) => (run.ratio ?? 0).toFixed(3));
  console.log(
    `| ${name} | ${runs.map((run) => run.code).join('/')} | ${runs.map((run) => run.limited).join('/')} | ` +
      `${runs.map((run) => run.forbidden).join('/')} | ${runs.map((run) => `${run.createdOnce}/${RECORDS}`).join(' ')} | ${ratios.join(' ')} |`,
  );
}
