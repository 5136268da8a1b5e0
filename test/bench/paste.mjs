// How long a long paste into a question takes to be answered, through the built pets on a
// pseudo-terminal (util-linux `script`): from the paste and Enter to the refusal on screen.
// The prompt library redraws the whole answer on every key, so without the answer limit of
// src/terminal/prompt.ts this grew with the square of the paste (20 KB: 42 s).
// Run: npm run build && node test/bench/paste.mjs
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const TRIALS = 5;

if (spawnSync('script', ['--version']).status !== 0) {
  console.log('paste: skipped, util-linux script is not installed');
  process.exit(0);
}

/** Milliseconds from typing `keys` at the question that shows `question` until `answered` shows. */
function timeAnswer({ args, env, question, keys, answered }) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'script',
      ['-qefc', `exec "${process.execPath}" "${BIN}" ${args}`, '/dev/null'],
      {
        env: { PATH: process.env.PATH, TERM: 'xterm', ...env },
      },
    );
    let screen = '';
    let start;
    const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.setEncoding('utf8').on('data', (text) => {
      screen = (screen + text).slice(-4000);
      if (start === undefined && screen.includes(question)) {
        start = performance.now();
        child.stdin.write(keys);
      } else if (start !== undefined && screen.includes(answered)) {
        const ms = performance.now() - start;
        child.kill('SIGKILL');
        clearTimeout(guard);
        resolve(ms);
      }
    });
    child.on('close', () => {
      clearTimeout(guard);
      reject(new Error(`pets ended before "${answered}" showed:\n${screen}`));
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'pets-bench-paste-'));
try {
  const env = {
    PETS_CONFIG_DIR: dir,
    PETS_PROFILE: 'staging',
    PETS_BASE_URL: 'http://127.0.0.1:9/v1',
    PETS_API_KEY: 'bench_key_0123456789',
  };
  // The hidden prompt takes a key of up to 64 KiB: a shorter paste would be sent as a key.
  const cases = [
    ['Name (pets add)', 'add', 'Name', 'At most 256 characters', [2_000, 20_000, 200_000]],
    ['hidden key (auth login)', 'auth login', 'input hidden', 'longer than', [200_000]],
  ];
  console.log(`paste into a question, then Enter: ms until it is refused (median of ${TRIALS})`);
  for (const [name, args, question, answered, sizes] of cases) {
    const medians = [];
    for (const size of sizes) {
      const times = [];
      for (let i = 0; i < TRIALS; i++) {
        const keys = `${'x'.repeat(size)}\r`;
        times.push(await timeAnswer({ args, env, question, keys, answered }));
      }
      times.sort((a, b) => a - b);
      const median = Math.round(times[Math.floor(TRIALS / 2)]);
      medians.push(median);
      console.log(`  ${name.padEnd(24)} ${String(size / 1000).padStart(4)} KB  ${median} ms`);
    }
    if (medians.length > 1) {
      const ratio = (medians.at(-1) / medians[0]).toFixed(1);
      const square = ((sizes.at(-1) / sizes[0]) ** 2).toLocaleString('en');
      console.log(`  ${name}: 100 times the paste took ${ratio}× as long (its square: ${square}×)`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
