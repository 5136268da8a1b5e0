import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir, tempDir } from '../helpers/config-dir.js';
import { sendJson, testFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { runMain } from '../helpers/run-main.js';

// A hostile server tries to drive the terminal through pet names and error messages.
const ATTACKS: Record<string, string> = {
  ESC: '\u001b',
  CSI: '\u001b[2J',
  'C1 CSI': '\u009b31m',
  OSC: '\u001b]0;pwned\u0007',
  'C1 controls': '\u0080\u0085\u008d\u009f',
  CR: '\r',
  BS: '\b',
  BEL: '\u0007',
  NUL: '\u0000',
  DEL: '\u007f',
  'RLO U+202E': '\u202e',
  'isolates U+2066-2069': '\u2066\u2067\u2068\u2069',
};
const HOSTILE = `Rex${Object.values(ATTACKS).join('')}end`;
// Tab and newline are TSV's and NDJSON's own separators; nothing else may pass raw.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const PET = JSON.stringify({ id: 1, name: HOSTILE, categoryId: 2, status: 'sold' });
const ERROR = (status: number) => JSON.stringify({ code: 'bad', message: `no${HOSTILE}`, status });

let fault: FaultServer;
let records: string;
beforeEach(async () => {
  fault = await testFaultServer();
  records = join(tempDir('pets-hostile-'), 'two.ndjson');
  writeFileSync(records, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n');
});

const env = () => ({
  PETS_CONFIG_DIR: tempConfigDir(),
  PETS_PROFILE: 'staging',
  PETS_BASE_URL: fault.baseUrl,
  PETS_API_KEY: 'key_0123456789',
});

function answer(status: number, body: string) {
  fault.handle((_req, res) => sendJson(res, status, body));
}

describe('server text never reaches the terminal raw', () => {
  it.each(Object.entries(ATTACKS))('%s in a name is shown escaped', async (_name, attack) => {
    answer(200, JSON.stringify([{ id: 1, name: `x${attack}y`, categoryId: 2 }]));
    const result = await runMain(['list', '--no-color'], env(), { stdoutIsTTY: true });
    expect(result.stdout).not.toMatch(RAW);
    const escaped = [...attack]
      .map((ch) => (RAW.test(ch) ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch))
      .join('');
    expect(result.stdout).toContain(`x${escaped}y`);
  });

  it.each([
    ['list, table', ['list', '--no-color'], true, () => answer(200, `[${PET}]`)],
    ['list, TSV', ['list'], false, () => answer(200, `[${PET}]`)],
    ['list, JSON', ['list', '--json'], false, () => answer(200, `[${PET}]`)],
    ['get, table', ['get', '1', '-q', '--no-color'], true, () => answer(200, PET)],
    ['get, TSV', ['get', '1', '-q'], false, () => answer(200, PET)],
    ['get, JSON', ['get', '1', '-q', '--json'], false, () => answer(200, PET)],
    ['get many, NDJSON', ['get', '1', '2', '-q', '--json'], false, () => answer(200, PET)],
    ['get many, table', ['get', '1', '2', '-q', '--no-color'], true, () => answer(200, PET)],
    [
      'add, table',
      ['add', '--name', 'A', '--category-id', '1', '--no-color'],
      true,
      () => answer(201, PET),
    ],
    [
      'add, JSON',
      ['add', '--name', 'A', '--category-id', '1', '--json'],
      false,
      () => answer(201, PET),
    ],
  ] as const)('%s: escaped on stdout', async (_case, args, tty, serve) => {
    serve();
    const result = await runMain([...args], env(), { stdoutIsTTY: tty });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('\\u001b]0;pwned\\u0007');
    expect(result.stdout).toContain('\\u202e');
    expect(result.stdout).not.toMatch(RAW);
  });

  it('JSON output stays exact JSON while escaping', async () => {
    answer(200, `[${PET}]`);
    const result = await runMain(['list', '--json'], env());
    expect(JSON.parse(result.stdout)[0].name).toBe(HOSTILE);
  });

  it.each([
    ['400 on add', ['add', '--name', 'A', '--category-id', '1'], 400],
    ['401 on auth status', ['auth', 'status'], 401],
    ['404 on get', ['get', '9', '-q'], 404],
    ['500 on list', ['list'], 500],
    ['429 on list', ['list', '--max-wait', '0'], 429],
  ] as const)(
    '%s: the server message is escaped on stderr, as text and as JSON',
    async (_case, args, status) => {
      answer(status, ERROR(status));
      // The server's own words are shown with --debug (and in the JSON error's detail).
      const text = await runMain([...args, '--debug'], env());
      expect(text.code).not.toBe(0);
      expect(text.stderr).not.toMatch(RAW);
      if (status !== 429) expect(text.stderr).toContain('\\u001b]0;pwned\\u0007');
      const json = await runMain([...args, '--json'], env());
      expect(json.stderr).not.toMatch(RAW);
      expect(() => JSON.parse(json.stderr)).not.toThrow();
    },
  );

  it('batch failures: escaped in the failures table and in NDJSON', async () => {
    answer(400, ERROR(400));
    const table = await runMain(['add', '--file', records], env());
    expect(table.stdout).toContain('\\u001b]0;pwned\\u0007');
    expect(table.stdout + table.stderr).not.toMatch(RAW);
    const ndjson = await runMain(
      ['add', '--file', records, '--json', '--journal', `${records}.2`],
      env(),
    );
    expect(ndjson.stdout + ndjson.stderr).not.toMatch(RAW);
    expect(JSON.parse(ndjson.stdout.split('\n')[0] as string).error.message).toContain('pwned');
  });
});

// Characters that print as nothing make "Rex" and "Re\u200bx" look the same on a terminal.
const INVISIBLE: Record<string, string> = {
  'zero-width space U+200B': '\u200b',
  'BOM U+FEFF': '\ufeff',
  'tag characters U+E0041, U+E007F': '\u{e0041}\u{e007f}',
  'Hangul filler U+3164': '\u3164',
  'interlinear annotation U+FFF9-FFFB': '\ufff9\ufffa\ufffb',
  'word joiner U+2060': '\u2060',
};
const SHOWN_RAW = /[\u200b\u2060\u3164\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/;

describe('invisible characters from the server are shown escaped', () => {
  it.each(Object.entries(INVISIBLE))('%s', async (_what, invisible) => {
    const escaped = invisible
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join('');
    answer(200, JSON.stringify([{ id: 1, name: `Re${invisible}x`, categoryId: 2 }]));
    for (const [args, tty] of [
      [['list', '--no-color'], true],
      [['list'], false],
      [['list', '--json'], false],
    ] as const) {
      const result = await runMain([...args], env(), { stdoutIsTTY: tty });
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(SHOWN_RAW);
      expect(result.stdout).toContain(`Re${escaped}x`);
      if ((args as readonly string[]).includes('--json'))
        expect(JSON.parse(result.stdout)[0].name).toBe(`Re${invisible}x`);
    }
    answer(400, JSON.stringify({ code: 'bad', message: `no ${invisible}`, status: 400 }));
    const failed = await runMain(['add', '--name', 'A', '--category-id', '1'], env());
    expect(failed.stderr).toContain(`no ${escaped}`);
    expect(failed.stderr).not.toMatch(SHOWN_RAW);
  });
});
