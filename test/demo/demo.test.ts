import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm run demo` as a newcomer runs it (npm test has built dist/): it must end well and show
// what pets is for, each step with its own output.

const DEMO = fileURLToPath(new URL('./demo.mjs', import.meta.url));

describe('npm run demo', () => {
  it('shows the plan, the waits, a Ctrl-C and a resume that creates every pet once, and --jq', async () => {
    const child = spawn(process.execPath, [DEMO], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (out += text));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(out).not.toContain('demo failed');
    expect(code, out).toBe(0);
    // --jq keeps the int64 id exact.
    expect(out).toContain("$ pets list --jq '.[0].id'\n9007199254740993\n");
    // The dry run's plan, then the import stopped by Ctrl-C, and its resume command.
    expect(out).toContain('--dry-run');
    expect(out).toMatch(/to send\s+20/);
    expect(out).toMatch(/Resume with: pets --profile shelter .*add --file catalogue\.csv/);
    expect(out).toMatch(/created \d+, failed 0, skipped [1-9]\d*, unknown 0/);
    // Every pet once, counted by the server itself.
    expect(out).toContain("'length, ([.[].name] | unique | length)'\n20\n20\n");
  }, 120_000);
});
