// Peak RSS of resuming `pets add --file` against journals of growing size, in one run, with
// the summary alone on stderr and with a --json line per record on stdout.
// Each journal is what a finished import leaves (the header, then an intent and a `created`
// outcome per record), written here directly so that only the resume is measured.
//   node test/bench/resume-memory.mjs [sizes=1000,50000,200000] [repeats=1]
import { execFile } from 'node:child_process';
import { hash } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSandbox } from '../../dist/sandbox/index.js';

const run = promisify(execFile);
const sizes = (process.argv[2] ?? '1000,50000,200000').split(',').map(Number);
const repeats = Number(process.argv[3] ?? 1);
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'pets-resume-'));
// Ids past 2^53 take the journal's int64 path, as a production server's ids may.
const FIRST_ID = 9_007_199_254_740_993n;

// The same name src/batch/record-hash.ts gives a record: its canonical JSON's sha256, 16 hex
// digits, then its occurrence among identical records (each record here is distinct).
const recordName = (pet) =>
  `${hash('sha256', JSON.stringify({ name: pet.name, categoryId: pet.categoryId, status: pet.status }), 'hex').slice(0, 16)}.0`;

async function pets(args, env) {
  const started = process.hrtime.bigint();
  const result = await run(process.execPath, [here('with-peak-rss.mjs'), ...args], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, kib: Number(/peak-rss-kib (\d+)/.exec(result.stderr)?.[1]), ...result };
}

const sandbox = await startSandbox({ plan: 'unlimited' });
const env = {
  PATH: process.env.PATH,
  PETS_CONFIG_DIR: mkdtempSync(join(home, 'config-')),
  PETS_PROFILE: 'staging',
  PETS_BASE_URL: sandbox.baseUrl,
  PETS_API_KEY: sandbox.key,
};

const rows = [];
for (const size of sizes) {
  const file = join(home, `records-${size}.ndjson`);
  const journal = `${file}.pets-journal`;
  // An empty input leaves a journal holding only its header, bound to this sandbox.
  writeFileSync(file, '');
  await pets(['add', '--file', file, '-q'], env);
  const lines = [];
  const entries = [];
  for (let i = 0; i < size; i++) {
    const pet = { name: `resume ${i}`, categoryId: i % 50, status: 'available' };
    const name = recordName(pet);
    lines.push(JSON.stringify(pet));
    entries.push(`{"i":"${name}","line":${i + 1}}`);
    entries.push(
      `{"o":"${name}","line":${i + 1},"outcome":"created","id":${FIRST_ID + BigInt(i)}}`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  appendFileSync(journal, `${entries.join('\n')}\n`);
  for (let repeat = 0; repeat < repeats; repeat++) {
    const row = [size];
    for (const output of ['summary', 'json']) {
      const resumed = await pets(
        ['add', '--file', file, ...(output === 'json' ? ['--json'] : [])],
        env,
      );
      const skipped =
        output === 'json'
          ? resumed.stdout.split('\n').filter((line) => line.includes('"skipped":true')).length
          : Number(/skipped (\d+)/.exec(resumed.stderr)?.[1]);
      if (skipped !== size) {
        throw new Error(`resume of ${size} skipped ${skipped}: ${resumed.stderr}`);
      }
      row.push(resumed.kib / 1024, resumed.seconds);
    }
    rows.push(row);
  }
}
await sandbox.close();
rmSync(home, { recursive: true, force: true });

const [, baseSummary, , baseJson] = rows[0];
const mb = (value, base) => `${value.toFixed(0)} (+${(value - base).toFixed(0)})`;
console.log('| journal records | peak RSS, MB: summary only | s | with --json lines | s |');
console.log('|---|---|---|---|---|');
for (const [size, summaryMb, summaryS, jsonMb, jsonS] of rows) {
  console.log(
    `| ${size} | ${mb(summaryMb, baseSummary)} | ${summaryS.toFixed(2)} | ${mb(jsonMb, baseJson)} | ${jsonS.toFixed(2)} |`,
  );
}
