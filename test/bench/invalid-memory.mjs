// Peak RSS of `pets add --file` over inputs of only invalid lines, 10 to 3,000,000 of them, in
// one run: `pets help batches` says what it takes, and this is where that figure comes from.
//   node test/bench/invalid-memory.mjs [counts=10,1000000,3000000]
import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSandbox } from '../../dist/sandbox/index.js';

const run = promisify(execFile);
const counts = (process.argv[2] ?? '10,1000000,3000000').split(',').map(Number);
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'pets-invalid-'));

async function write(path, count) {
  const out = createWriteStream(path);
  // A name too long is refused before anything is sent: each line is its own failure.
  const line = `${JSON.stringify({ name: '', categoryId: 1 })}\n`;
  for (let i = 0; i < count; i++) {
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve) => out.end(resolve));
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
try {
  for (const count of counts) {
    const file = join(home, `invalid-${count}.ndjson`);
    await write(file, count);
    for (const mode of [['-q'], ['--json']]) {
      const result = await run(
        process.execPath,
        [here('with-peak-rss.mjs'), 'add', '--file', file, ...mode],
        { env, maxBuffer: 2 ** 31 - 1 },
      ).catch((error) => error);
      const kib = Number(/peak-rss-kib (\d+)/.exec(result.stderr ?? '')?.[1]);
      rows.push({ count, mode: mode[0], mib: kib / 1024 });
    }
  }
} finally {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
}
for (const mode of ['-q', '--json']) {
  const base = rows.find((row) => row.count === counts[0] && row.mode === mode).mib;
  for (const row of rows.filter((r) => r.mode === mode)) {
    console.log(
      `invalid lines ${String(row.count).padStart(9)} ${mode.padEnd(6)} peak RSS ${row.mib.toFixed(0).padStart(4)} MiB  ${(row.mib / base).toFixed(2)}x of ${counts[0]} lines`,
    );
  }
}
