import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../../src/json/int64-json.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { apiEnv } from '../../helpers/api-env.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { sendJson, startFaultServer } from '../../helpers/fault-server.js';
import { runMain } from '../../helpers/run-main.js';
import { tempDir } from '../../helpers/config-dir.js';

let sandbox: RunningSandbox;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  sandbox = await startSandbox({ plan: 'unlimited', firstId: 9007199254740993n });
  dir = tempDir('pets-batch-');
  // staging: production is protected, and its confirmation has tests of its own.
  env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
});
afterEach(() => sandbox.close());

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const ndjsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => parseJson(line) as Record<string, unknown>);

describe('pets add --file', () => {
  it('creates the valid records, reports the invalid ones by line, and exits 1', async () => {
    const path = file(
      'mixed.ndjson',
      [
        '{"name":"Rex","categoryId":1,"status":"available"}',
        '{"name":"","categoryId":1}',
        '',
        'not json',
        '{"name":"Big","categoryId":9223372036854775807}',
        '{"name":"Lost","categoryId":1,"status":"lost"}',
      ].join('\n'),
    );
    const result = await runMain(['add', '--file', path, '--json'], env);
    expect(result.code).toBe(1);
    const lines = ndjsonLines(result.stdout);
    expect(lines.map((l) => l.line)).toEqual([1, 2, 4, 5, 6]);
    expect(lines[0]).toMatchObject({ pet: { name: 'Rex', id: 9007199254740993n } });
    expect(lines[1]).toMatchObject({ error: { code: 'invalid_record' } });
    expect(lines[3]).toMatchObject({ pet: { categoryId: 9223372036854775807n } });
    expect(String((lines[4]?.error as { message: string }).message)).toContain(
      'available, pending, sold',
    );
    expect(result.stderr).toContain('created 2, failed 3, skipped 0, unknown 0');
    expect(sandbox.pets().map((p) => p.name)).toEqual(['Rex', 'Big']);
  });

  it('reads CSV with quoted commas, quotes and unicode names', async () => {
    const path = file(
      'pets.csv',
      'name,categoryId,status\n"Zoë, the ""great""",2,available\n柴犬,3,\nMiso 🐱,9007199254740993,sold\n',
    );
    const result = await runMain(['add', '--file', path, '-q'], env);
    expect(result.code).toBe(0);
    // Concurrent creates may arrive in any order.
    const stored = sandbox.pets().map((p) => [p.name, p.categoryId, p.status]);
    expect(stored).toHaveLength(3);
    expect(stored).toEqual(
      expect.arrayContaining([
        ['Zoë, the "great"', 2n, 'available'],
        ['柴犬', 3n, undefined],
        ['Miso 🐱', 9007199254740993n, 'sold'],
      ]),
    );
  });

  it('reads a JSON array, and prints a failures table without --json', async () => {
    const path = file('pets.json', '[{"name":"A","categoryId":1},{"name":"B"}]');
    const result = await runMain(['add', '--file', path], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      'LINE\tCODE\tMESSAGE\n2\tinvalid_record\tline 2: categoryId is required: an integer within int64\n',
    );
    expect(sandbox.pets()).toHaveLength(1);
  });

  it('on a second run skips what was created, sending nothing again', async () => {
    const path = file('again.ndjson', '{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}\n');
    expect((await runMain(['add', '--file', path], env)).code).toBe(0);
    const sent = sandbox.requestLog.length;
    const again = await runMain(['add', '--file', path, '--json'], env);
    expect(again.code).toBe(0);
    expect(ndjsonLines(again.stdout).map((l) => l.skipped)).toEqual([true, true]);
    expect(again.stderr).toContain('created 0, failed 0, skipped 2, unknown 0');
    expect(sandbox.requestLog.length).toBe(sent);
    expect(sandbox.pets()).toHaveLength(2);
  });

  it('knows records by content: lines inserted, removed or reordered repeat nothing', async () => {
    const path = file(
      'editing.ndjson',
      '{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}\n{"name":"A","categoryId":1}\n',
    );
    expect((await runMain(['add', '--file', path], env)).code).toBe(0);
    expect(sandbox.pets()).toHaveLength(3);
    // A blank line and a new record on top, the rest reordered, one twin removed.
    writeFileSync(
      path,
      '\n{"name":"C","categoryId":3}\n{"name":"B","categoryId":2}\n{"name":"A","categoryId":1}\n',
    );
    const result = await runMain(['add', '--file', path, '--json'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('created 1, failed 0, skipped 2, unknown 0');
    expect(
      sandbox
        .pets()
        .map((p) => p.name)
        .sort(),
    ).toEqual(['A', 'A', 'B', 'C']);
  });

  it('sends a record whose final failure (400) was fixed in the file', async () => {
    const path = file('fixing.ndjson', '{"name":"","categoryId":1}\n');
    const failed = await runMain(['add', '--file', path], env);
    expect(failed.code).toBe(1);
    const before = sandbox.pets().length;
    // Unchanged, it is not sent again: the same 400 would come back.
    expect((await runMain(['add', '--file', path], env)).stderr).toContain('failed 1');
    expect(sandbox.pets()).toHaveLength(before);
    writeFileSync(path, '{"name":"Fixed","categoryId":1}\n');
    const fixed = await runMain(['add', '--file', path], env);
    expect(fixed.code).toBe(0);
    expect(sandbox.pets().map((p) => p.name)).toContain('Fixed');
  });

  it('needs --journal for stdin, and then reads it', async () => {
    const refused = await runMain(['add', '--file', '-'], env, {
      stdin: '{"name":"A","categoryId":1}\n',
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--journal');
    const journal = join(dir, 'stdin.journal');
    const result = await runMain(['add', '--file', '-', '--journal', journal, '-q'], env, {
      stdin: '{"name":"A","categoryId":1}\n',
    });
    expect(result.code).toBe(0);
    expect(readFileSync(journal, 'utf8')).toMatch(/"outcome":"created"/);
  });

  it('refuses --file together with --name', async () => {
    const result = await runMain(['add', '--file', 'x.csv', '--name', 'A'], env);
    expect(result.code).toBe(2);
  });
});

describe('pets add --file against a faulty server', () => {
  it('rides out a 429 mid-batch and creates every record exactly once', async () => {
    const clock = fakeClock();
    const fault = await startFaultServer(clock.now);
    try {
      let count = 0;
      fault.handle((req, res) => {
        count++;
        if (count === 3) {
          sendJson(res, 429, '{"code":"rate_limited","message":"slow","status":429}', {
            'retry-after': '5',
          });
          return;
        }
        const body = JSON.parse(req.body) as { name: string };
        sendJson(res, 201, JSON.stringify({ id: count, name: body.name, categoryId: 1 }));
      });
      const path = file(
        'six.ndjson',
        Array.from({ length: 6 }, (_, i) => `{"name":"P${i}","categoryId":1}`).join('\n'),
      );
      const result = await runMain(
        ['add', '--file', path, '--concurrency', '1', '-q'],
        { ...env, PETS_BASE_URL: fault.baseUrl },
        {},
        clock,
      );
      expect(result.code).toBe(0);
      const names = fault.requests.map((r) => (JSON.parse(r.body) as { name: string }).name);
      expect(names).toEqual(['P0', 'P1', 'P2', 'P2', 'P3', 'P4', 'P5']);
      expect(fault.requests[3]!.at - fault.requests[2]!.at).toBeGreaterThanOrEqual(5_000);
    } finally {
      await fault.close();
    }
  });

  it('journals a create cut off after sending as unknown, and does not resend it unless asked', async () => {
    const fault = await startFaultServer();
    try {
      fault.handle((req, res, socket) => {
        const body = JSON.parse(req.body) as { name: string };
        if (body.name === 'Cut') socket.destroy();
        else sendJson(res, 201, JSON.stringify({ id: 1, name: body.name, categoryId: 1 }));
      });
      const path = file(
        'cut.ndjson',
        '{"name":"Cut","categoryId":1}\n{"name":"Fine","categoryId":1}\n',
      );
      const local = { ...env, PETS_BASE_URL: fault.baseUrl };
      const first = await runMain(['add', '--file', path, '--json', '--concurrency', '1'], local);
      expect(first.code).toBe(1);
      expect(ndjsonLines(first.stdout)[0]).toMatchObject({
        line: 1,
        error: { code: 'outcome_unknown' },
      });
      expect(first.stderr).toContain('unknown 1');
      expect(first.stderr).toContain('--retry-unknown');

      const held = await runMain(['add', '--file', path, '--json'], local);
      expect(held.stderr).toContain('created 0, failed 0, skipped 1, unknown 1');
      const cutSends = () => fault.requests.filter((r) => r.body.includes('"Cut"')).length;
      expect(cutSends()).toBe(1);

      await runMain(['add', '--file', path, '--retry-unknown', '-q'], local);
      expect(cutSends()).toBe(2);
    } finally {
      await fault.close();
    }
  });

  it('stops early with the exit code of the reason, and says how to resume', async () => {
    const fault = await startFaultServer();
    try {
      fault.handle((_req, res) =>
        sendJson(res, 429, '{"code":"rate_limited","message":"no","status":429}', {
          'retry-after': '7200',
        }),
      );
      const path = file(
        'stop.ndjson',
        '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n',
      );
      const result = await runMain(['add', '--file', path], {
        ...env,
        PETS_BASE_URL: fault.baseUrl,
      });
      expect(result.code).toBe(5);
      expect(result.stderr).toContain(
        `Stopped early. Resume with: pets --profile staging add --file ${path}`,
      );
      // The one sent and refused failed; the other was not sent: the counts are the server's.
      expect(fault.requests.length).toBe(1);
      expect(result.stderr).toMatch(/created 0, failed 1, skipped 0, unknown 0, not sent 1 /);
      expect(result.stderr).toContain('pets stopped after sending 1 request');
    } finally {
      await fault.close();
    }
  });

  it('repeats every option that matters in the resume command, quoted for the shell, never --yes', async () => {
    const fault = await startFaultServer();
    try {
      fault.handle((_req, res) =>
        sendJson(res, 429, '{"code":"rate_limited","message":"no","status":429}', {
          'retry-after': '7200',
        }),
      );
      const path = file("it's mine.txt", '{"name":"A","categoryId":1}\n');
      const journal = join(dir, 'a journal');
      const args = [
        '--format',
        'ndjson',
        '--journal',
        journal,
        '--concurrency',
        '2',
        '--retry-unknown',
      ];
      const result = await runMain(['--max-wait', '30', 'add', '--file', path, ...args, '--yes'], {
        ...env,
        PETS_BASE_URL: fault.baseUrl,
      });
      expect(result.code).toBe(5);
      const resume = /Resume with: (.*)/.exec(result.stderr)?.[1] ?? '';
      // What a shell makes of it: the same words as given, and the profile the run used.
      const words = execFileSync('sh', ['-c', `printf '%s\\n' ${resume}`], { encoding: 'utf8' })
        .trimEnd()
        .split('\n');
      // --yes is not repeated: a protected profile asks again.
      expect(words).toEqual([
        'pets',
        '--profile',
        'staging',
        '--max-wait',
        '30',
        'add',
        '--file',
        path,
        ...args,
      ]);
    } finally {
      await fault.close();
    }
  });

  it('never writes the key into the journal, even when the server echoes it back', async () => {
    const fault = await startFaultServer();
    try {
      // A key with a quote and a backslash: JSON writes it escaped, and that form must go too.
      const key = 'sk_echo"me\\0123456789';
      fault.handle((req, res) => {
        const echoed = String(req.headers.authorization);
        const name = (JSON.parse(req.body) as { name: string }).name;
        const status = name === 'Bad' ? 400 : 500;
        const body = JSON.stringify({ code: `bad ${echoed}`, message: `no ${echoed}`, status });
        sendJson(res, status, body);
      });
      const path = file(
        'echo.ndjson',
        '{"name":"Bad","categoryId":1}\n{"name":"Down","categoryId":1}\n',
      );
      const journal = join(dir, 'echo.journal');
      const local = { ...env, PETS_BASE_URL: fault.baseUrl, PETS_API_KEY: key };
      const result = await runMain(
        ['add', '--file', path, '--journal', journal, '--concurrency', '1'],
        local,
      );
      expect(result.code).toBe(1);
      const written = readFileSync(journal, 'utf8');
      expect(written).toContain('"failed"');
      expect(written).toContain('"unknown"');
      expect(written).toContain('***');
      expect(written).not.toContain(key);
      expect(written).not.toContain(JSON.stringify(key).slice(1, -1));
      expect(written).not.toContain('0123456789');
    } finally {
      await fault.close();
    }
  });
});

describe('pets get with many ids', () => {
  it('fetches concurrently, in input order, reporting a missing id on its line', async () => {
    const path = file(
      'ids.ndjson',
      Array.from({ length: 20 }, (_, i) => `{"name":"N${i}","categoryId":1}`).join('\n'),
    );
    await runMain(['add', '--file', path, '-q'], env);
    // Created concurrently, so ids are not in name order: expect names in the order of the ids.
    const stored = sandbox.pets();
    const ids = stored.map((p) => String(p.id));
    const stdin = [...ids.slice(0, 10), '1', ...ids.slice(10)].join('\n');
    const result = await runMain(['get', '-', '--json', '-q'], env, { stdin });
    expect(result.code).toBe(3);
    const lines = ndjsonLines(result.stdout);
    expect(lines).toHaveLength(21);
    expect(lines[10]).toMatchObject({ line: 11, error: { status: 404 } });
    expect(lines.filter((l) => l.pet).map((l) => (l.pet as { name: string }).name)).toEqual(
      stored.map((p) => p.name),
    );
  });
});

describe('pets get with many ids, stopped early', () => {
  it('gives every id its line, in order: refused for those sent, not_sent for the others', async () => {
    const fault = await startFaultServer();
    try {
      let served = 0;
      const asked = new Set<number>();
      const found: number[] = [];
      fault.handle((req, res) => {
        served++;
        asked.add(Number(req.url.split('/').pop()));
        if (served <= 2) {
          found.push(Number(req.url.split('/').pop()));
          const id = req.url.split('/').pop();
          sendJson(res, 200, `{"id":${id},"name":"P${id}","categoryId":1}`);
        } else {
          sendJson(res, 429, '{"code":"rate_limited","message":"no","status":429}', {
            'retry-after': '7200',
          });
        }
      });
      // 20 ids: more than the workers, so some are never sent once the 429 stops the run.
      const ids = Array.from({ length: 20 }, (_, i) => String(i + 1));
      const result = await runMain(['get', ...ids, '--json'], {
        ...env,
        PETS_BASE_URL: fault.baseUrl,
        PETS_NO_DEPRECATION_WARNING: '1',
      });
      expect(result.code).toBe(5);
      const lines = ndjsonLines(result.stdout);
      expect(lines.map((l) => l.line)).toEqual(ids.map(Number));
      // The first two to arrive are found: requests in flight together may arrive in any order.
      const foundLines = lines.filter((l) => 'pet' in l).map((l) => l.line);
      expect(foundLines).toEqual(found.sort((a, b) => a - b));
      // Line N is id N: one that left was refused (429), one that never left was not sent.
      for (const line of lines.filter((l) => !('pet' in l))) {
        const code = asked.has(line.line as number) ? 'rate_limited' : 'not_sent';
        expect(line).toMatchObject({ error: { code } });
      }
      expect(lines.slice(2).some((line) => !asked.has(line.line as number))).toBe(true);
    } finally {
      await fault.close();
    }
  });
});
