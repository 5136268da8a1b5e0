// A shell-style loop of `pets list --json` runs against the sandbox on the Free plan with a
// per-minute limit, as a script would run pets: one process after another. Reports the 429s
// the sandbox answered, the exit codes, and the time taken as a ratio to the ideal (the
// time the quota allows a steady stream: runs / rpm minutes).
//   node test/bench/rate-loop.mjs [runs=90] [rpm=30]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSandbox } from '../../dist/sandbox/index.js';

const run = promisify(execFile);
const runs = Number(process.argv[2] ?? 90);
const rpm = Number(process.argv[3] ?? 30);
const bin = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'pets-bench-'));
const sandbox = await startSandbox({ plan: 'free', rpm, seed: 5 });
const env = {
  PATH: process.env.PATH,
  PETS_CONFIG_DIR: join(home, 'config'),
  PETS_BASE_URL: sandbox.baseUrl,
  PETS_API_KEY: sandbox.key,
};

const exits = new Map();
const started = Date.now();
for (let i = 0; i < runs; i++) {
  const code = await run(process.execPath, [bin, 'list', '--json'], { env }).then(
    () => 0,
    (error) => error.code,
  );
  exits.set(code, (exits.get(code) ?? 0) + 1);
}
const elapsedS = (Date.now() - started) / 1000;
await sandbox.close();
rmSync(home, { recursive: true, force: true });

const statuses = new Map();
for (const entry of sandbox.requestLog)
  statuses.set(entry.status, (statuses.get(entry.status) ?? 0) + 1);
const idealS = (runs / rpm) * 60;
console.log(`| measure | value |`);
console.log(`|---|---|`);
console.log(`| runs of pets list --json | ${runs} |`);
console.log(`| plan | free, --rpm ${rpm} |`);
console.log(`| exit codes | ${[...exits].map(([c, n]) => `${c}: ${n}`).join(', ')} |`);
console.log(`| sandbox answers | ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')} |`);
console.log(`| elapsed | ${elapsedS.toFixed(1)} s |`);
console.log(`| ideal (runs / rpm) | ${idealS.toFixed(1)} s |`);
console.log(`| ratio to ideal | ${(elapsedS / idealS).toFixed(3)} |`);
process.exitCode = exits.size === 1 && exits.has(0) && !statuses.has(429) ? 0 : 1;
