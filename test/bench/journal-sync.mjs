// The cost of syncing the journal, measured in one run, printed as a table:
//  - one append + fdatasync on this machine's disk (the floor of a synced write);
//  - `pets add --file` unpaced, its journal on the disk against the same import with its
//    journal on tmpfs (/dev/shm), where fdatasync returns at once: the ratio is what the
//    write-ahead sync costs a real batch, every other cost being the same.
//   node test/bench/journal-sync.mjs [records=5000] [syncs=500]
import { execFile } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSandbox } from '../../dist/sandbox/index.js';

const run = promisify(execFile);
const [count = 5_000, syncs = 500] = process.argv.slice(2).map(Number);
const bin = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const onDisk = mkdtempSync(join(tmpdir(), 'pets-sync-'));
const onTmpfs = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/pets-sync-') : undefined;
const CONCURRENCY = 8;
const rows = [];

{
  const fd = openSync(join(onDisk, 'sync-probe'), 'a');
  const started = process.hrtime.bigint();
  for (let i = 0; i < syncs; i++) {
    writeSync(fd, `{"i":"0123456789abcdef.${i}","line":${i}}\n`);
    fdatasyncSync(fd);
  }
  const micros = Number(process.hrtime.bigint() - started) / 1e3 / syncs;
  closeSync(fd);
  rows.push([
    'append + fdatasync on the disk',
    `${micros.toFixed(0)} µs each (${syncs} in a row)`,
    '',
  ]);
}

const file = join(onDisk, 'records.ndjson');
writeFileSync(
  file,
  Array.from({ length: count }, (_, i) => JSON.stringify({ name: `S ${i}`, categoryId: 1 })).join(
    '\n',
  ),
);

async function importWithJournalIn(dir) {
  const sandbox = await startSandbox({ plan: 'unlimited' });
  const env = {
    PATH: process.env.PATH,
    PETS_CONFIG_DIR: mkdtempSync(join(onDisk, 'config-')),
    PETS_PROFILE: 'staging',
    PETS_BASE_URL: sandbox.baseUrl,
    PETS_API_KEY: sandbox.key,
  };
  const journal = join(dir, `j-${Math.random().toString(36).slice(2)}`);
  const started = process.hrtime.bigint();
  await run(
    process.execPath,
    [bin, 'add', '--file', file, '--journal', journal, '-q', '--concurrency', String(CONCURRENCY)],
    { env },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const created = sandbox.pets().length;
  await sandbox.close();
  return { seconds, rate: created / seconds, created };
}

if (onTmpfs) {
  // Alternated, so that a noisy neighbour weighs on both sides alike.
  const disk = [];
  const tmpfs = [];
  for (let round = 0; round < 2; round++) {
    tmpfs.push(await importWithJournalIn(onTmpfs));
    disk.push(await importWithJournalIn(onDisk));
  }
  const best = (runs) => runs.reduce((a, b) => (a.rate > b.rate ? a : b));
  const [d, t] = [best(disk), best(tmpfs)];
  rows.push([
    'pets add --file, journal on tmpfs (no sync cost)',
    `${t.rate.toFixed(0)}/s (${t.created} in ${t.seconds.toFixed(1)} s)`,
    '1.000',
  ]);
  rows.push([
    'pets add --file, journal on the disk (synced)',
    `${d.rate.toFixed(0)}/s (${d.created} in ${d.seconds.toFixed(1)} s)`,
    `${(d.rate / t.rate).toFixed(3)} of tmpfs`,
  ]);
}

rmSync(onDisk, { recursive: true, force: true });
if (onTmpfs) rmSync(onTmpfs, { recursive: true, force: true });
console.log('| measure | value | ratio |');
console.log('|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
