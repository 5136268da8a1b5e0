import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { BIN } from '../helpers/run-binary.js';

// util-linux `script` gives pets a real pseudo-terminal: stderr is a TTY, so the progress
// line is drawn as a person sees it.
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('a batch on a terminal', () => {
  it('starts with its plan, and counts the progress line down through a wait', async () => {
    // 3 creates per 3 s window: 6 records wait once, about 3 s, on the real clock.
    const sandbox = await startSandbox({ plan: 'free', rpm: 3, windowSeconds: 3 });
    try {
      const dir = tempDir('pets-progress-');
      const input = join(dir, 'six.ndjson');
      writeFileSync(
        input,
        Array.from({ length: 6 }, (_, i) => JSON.stringify({ name: `T${i}`, categoryId: 1 })).join(
          '\n',
        ),
      );
      const env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
      const child = spawn(
        'script',
        ['-qefc', `exec "${process.execPath}" "${BIN}" add --file "${input}"`, '/dev/null'],
        { env: { PATH: process.env.PATH, TERM: 'xterm', ...env } },
      );
      let screen = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => (screen += text));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      expect(sandbox.pets()).toHaveLength(6);
      expect(screen).toMatch(/6 to send · quota not known yet/);
      // The frames of the line, as drawn: the countdown falls a second at a time.
      const counts = screen
        .split('\r')
        .map((frame) => /sending in (\d+) s/.exec(frame)?.[1])
        .filter((count): count is string => count !== undefined)
        .map(Number);
      const distinct = counts.filter((count, i) => i === 0 || count !== counts[i - 1]);
      // Redrawn as the wait runs, falling to its last second (a loaded machine may wake late).
      expect(distinct.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < distinct.length; i++) expect(distinct[i]).toBeLessThan(distinct[i - 1]!);
      expect(distinct.at(-1)).toBe(1);
      expect(screen).toMatch(/created 6, failed 0, skipped 0, unknown 0/);
    } finally {
      await sandbox.close();
    }
  }, 20_000);
});
