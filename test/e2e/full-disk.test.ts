import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { runBinary } from '../helpers/run-binary.js';
import { startStrictServer } from '../helpers/strict-server.js';

// The journal on a real full disk: a 64 KiB tmpfs with about 19 KiB free, as the issue that
// found duplicates set it up. Mounting needs privileges; where they are lacking, the test is
// skipped and says so (the injected failing writer of test/batch covers the logic anywhere).

const mountPoint = mkdtempSync(join(tmpdir(), 'pets-full-disk-'));
const mounted =
  process.platform === 'linux' &&
  spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', mountPoint]).status === 0;
if (!mounted) console.log('skipped: the full-disk test needs `mount -t tmpfs` (root on Linux)');
afterAll(() => {
  if (mounted) spawnSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

describe.runIf(mounted)('a journal on a full tmpfs', () => {
  it.each([1, 8])(
    'concurrency %i: exit 1 naming the journal, and no resume creates a pet twice',
    async (concurrency) => {
      const server = await startStrictServer({ limit: 1e6, windowMs: 60_000, latencyMs: 2 });
      try {
        const dir = join(mountPoint, `c${concurrency}`);
        mkdirSync(dir);
        // Everything but about 19 KiB taken.
        const filler = join(mountPoint, `filler${concurrency}`);
        writeFileSync(filler, Buffer.alloc(64 * 1024 - 19 * 1024 - 8 * 1024));
        const input = join(tempDir('pets-full-input-'), 'records.ndjson');
        const names = Array.from({ length: 400 }, (_, i) => `D${concurrency}-${i}`);
        writeFileSync(
          input,
          names.map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'),
        );
        const journal = join(dir, 'j');
        const env = apiEnv(server, { PATH: process.env.PATH ?? '', PETS_PROFILE: 'staging' });
        const args = [
          'add',
          '--file',
          input,
          '--journal',
          journal,
          '--concurrency',
          String(concurrency),
        ];

        const full = await runBinary([...args, '-q'], env);
        expect(full.code, full.stderr).toBe(1);
        expect(full.stderr).toContain(`the journal ${journal} could not be written (ENOSPC)`);
        const createdAtFull = server.created.length;
        expect(createdAtFull).toBeLessThan(names.length);

        // Resumed on the disk still full: stops before sending anything.
        const stillFull = await runBinary([...args, '-q'], env);
        expect(stillFull.code).toBe(1);
        expect(server.created).toHaveLength(createdAtFull);

        // Room again, and the printed resume command run five times.
        rmSync(filler);
        let unknown: string[] = [];
        for (let resume = 0; resume < 5; resume++) {
          const resumed = await runBinary([...args, '--json'], env);
          expect([0, 1]).toContain(resumed.code);
          unknown = resumed.stdout
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { line: number; error?: { code: string } })
            .filter((line) => line.error?.code === 'outcome_unknown')
            .map((line) => names[line.line - 1]!);
        }
        const seen = new Set<string>();
        const duplicates = server.created.filter((n) =>
          seen.has(n) ? true : (seen.add(n), false),
        );
        console.log(
          `full tmpfs, concurrency ${concurrency}: ${createdAtFull} created before the disk filled, ` +
            `journal ${readFileSync(journal).length} bytes after, ${duplicates.length} duplicates, ${unknown.length} unknown`,
        );
        expect(duplicates).toEqual([]);
        expect(names.filter((n) => !seen.has(n) && !unknown.includes(n))).toEqual([]);
      } finally {
        await server.close();
        rmSync(join(mountPoint, `c${concurrency}`), { recursive: true, force: true });
        rmSync(join(mountPoint, `filler${concurrency}`), { force: true });
      }
    },
    60_000,
  );
});
