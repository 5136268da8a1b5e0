import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { BIN, runBinary } from '../helpers/run-binary.js';
import { hasScript, onTerminal } from '../helpers/terminal.js';
import { STDERR_KINDS } from '../../src/cmd/help/json-topic.js';
import { runMain, type RunResult } from '../helpers/run-main.js';
import { runSandboxCommand } from '../helpers/sandbox-command.js';
import { testSandbox } from '../helpers/sandbox.js';

// What a script relies on, tried with the built binary against the sandbox: under --json
// every stderr line is one JSON object, and --jq filters the exact JSON.

let sandbox: RunningSandbox;
const FIRST = '9007199254740993';
const SECOND = '9007199254740994';

beforeEach(async () => {
  sandbox = await testSandbox({ firstId: BigInt(FIRST), plan: 'unlimited', seed: 3 });
});

/** Each stderr line, parsed; the test fails on the first that is not exactly one JSON object. */
function stderrObjects(result: RunResult): Array<Record<string, Record<string, unknown>>> {
  return result.stderr
    .split('\n')
    .filter((line, index, lines) => line !== '' || index !== lines.length - 1)
    .map((line) => {
      const value = JSON.parse(line) as Record<string, Record<string, unknown>>;
      expect(Object.keys(value)).toHaveLength(1);
      const [[kind, body]] = Object.entries(value) as [[string, Record<string, unknown>]];
      expect(body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      // Every code a script can meet is one `pets help json` names, with its fields.
      if (kind !== 'error') {
        const documented = STDERR_KINDS.find((k) => k.kind === kind)?.codes[body.code as string];
        expect({ kind, code: body.code, documented: documented !== undefined }).toEqual({
          kind,
          code: body.code,
          documented: true,
        });
        for (const field of documented!.fields) expect(body).toHaveProperty(field);
      }
      return value;
    });
}

function ndjsonFile(lines: string[]): string {
  const file = join(tempDir('pets-json-'), 'pets.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const badKey = () => apiEnv({ baseUrl: sandbox.baseUrl, key: 'wrong_key_abcdef' });

describe('under --json, every stderr line is one JSON object', () => {
  const file = () =>
    ndjsonFile(['{"name":"Ok","categoryId":1}', '{"name":"","categoryId":1}', 'not json']);
  const cases: Array<[string, () => string[], () => Record<string, string>, number]> = [
    ['list', () => ['list'], () => apiEnv(sandbox), 0],
    ['list, 401', () => ['list'], badKey, 4],
    ['list --debug', () => ['list', '--debug'], () => apiEnv(sandbox), 0],
    ['get one', () => ['get', FIRST], () => apiEnv(sandbox), 0],
    ['get one, 404', () => ['get', '999'], () => apiEnv(sandbox), 3],
    ['get many, one missing', () => ['get', FIRST, '999'], () => apiEnv(sandbox), 3],
    ['add', () => ['add', '--name', 'Json', '--category-id', '1'], () => apiEnv(sandbox), 0],
    ['add, 401', () => ['add', '--name', 'Json', '--category-id', '1'], badKey, 4],
    [
      'add on a protected profile',
      () => ['add', '--name', 'P', '--category-id', '1', '--profile', 'production'],
      () => apiEnv(sandbox),
      0,
    ],
    [
      'add --file, some records failing',
      () => ['add', '--file', file(), '--yes'],
      () => apiEnv(sandbox),
      1,
    ],
    ['quota', () => ['quota'], () => apiEnv(sandbox), 0],
    ['quota, 401', () => ['quota'], badKey, 4],
    ['auth status', () => ['auth', 'status'], () => apiEnv(sandbox), 0],
    ['auth status, 401', () => ['auth', 'status'], badKey, 4],
    ['profile list, with overrides warned', () => ['profile', 'list'], () => apiEnv(sandbox), 0],
    ['profile show', () => ['profile', 'show'], () => apiEnv(sandbox), 0],
    [
      'profile show, no such profile',
      () => ['profile', 'show', 'nosuch'],
      () => apiEnv(sandbox),
      2,
    ],
    ['api', () => ['api', '/pets'], () => apiEnv(sandbox), 0],
    ['api, 404 with the deprecation warning', () => ['api', `/pets/999`], () => apiEnv(sandbox), 3],
    ['api, 400', () => ['api', '/pets', '-f', 'name=', '--yes'], () => apiEnv(sandbox), 1],
    [
      'sandbox, its port in use',
      () => ['sandbox', '--port', new URL(sandbox.baseUrl).port, '--no-save-profile'],
      () => apiEnv(sandbox),
      2,
    ],
    [
      'profile set, a command with notices only',
      () => ['profile', 'set', 'json-x', '--base-url', 'http://127.0.0.1:1/v1'],
      () => apiEnv(sandbox),
      0,
    ],
    ['a usage error', () => ['list', '--limit', 'x'], () => apiEnv(sandbox), 2],
    ['no command', () => [], () => apiEnv(sandbox), 2],
    // A noun alone asks for its help (exit 0), as in gh: stderr stays empty.
    ['a group without its command', () => ['profile'], () => apiEnv(sandbox), 0],
  ];

  it.each(cases)('%s', async (name, args, env, exitCode) => {
    const result = await runBinary([...args(), '--json'], env());
    expect(result.code).toBe(exitCode);
    const objects = stderrObjects(result);
    // A batch gives each failure its stdout line; anything else ends with the error.
    const batch = /get many|add --file/.test(name);
    if (exitCode !== 0 && !batch) expect(objects.at(-1)).toHaveProperty('error.exitCode', exitCode);
  });

  it('says the deprecation as a warning with its code and Sunset date', async () => {
    const result = await runBinary(['get', FIRST, '--json'], apiEnv(sandbox));
    expect(stderrObjects(result)).toEqual([
      {
        warning: {
          code: 'deprecated',
          message: expect.stringContaining('2030-12-05'),
          operation: 'GET /pets/{petId}',
          sunset: '2030-12-05',
        },
      },
    ]);
  });

  it('gives a batch summary as an object with its counts', async () => {
    const result = await runBinary(
      ['add', '--file', ndjsonFile(['{"name":"A","categoryId":1}']), '--json', '--yes'],
      apiEnv(sandbox),
    );
    expect(result.code).toBe(0);
    expect(stderrObjects(result)).toEqual([
      { warning: expect.objectContaining({ code: 'protected_profile', profile: 'production' }) },
      {
        summary: expect.objectContaining({
          code: 'batch',
          created: 1,
          failed: 0,
          skipped: 0,
          unknown: 0,
          notSent: 0,
        }),
      },
    ]);
  });

  it('stays JSON with terminals on both streams: hints, no progress lines', async () => {
    const tty = { stdoutIsTTY: true, stderrIsTTY: true, stdinIsTTY: false };
    for (const args of [
      ['list', '--limit', '1'],
      ['add', '--file', ndjsonFile(['{"name":"T","categoryId":1}']), '--yes'],
      ['get', FIRST],
      ['quota'],
    ]) {
      const result = await runMain([...args, '--json'], apiEnv(sandbox), tty);
      expect(result.code).toBe(0);
      stderrObjects(result);
    }
    const hinted = await runMain(['list', '--limit', '1', '--json'], apiEnv(sandbox), tty);
    expect(stderrObjects(hinted)).toContainEqual({
      hint: expect.objectContaining({ code: 'environment', host: new URL(sandbox.baseUrl).host }),
    });
  });

  it('leaves stderr as text without --json', async () => {
    const result = await runBinary(['get', '999'], apiEnv(sandbox));
    expect(result.stderr).toBe(
      'warning: GET /pets/{petId} is deprecated and goes away on 2030-12-05.\n' +
        'error: no pet with id 999 (404)\n',
    );
  });
});

describe('--jq', () => {
  it('keeps int64 ids exact through filters, and prints strings raw', async () => {
    const env = apiEnv(sandbox);
    const cases: Array<[string[], string]> = [
      [['list', '--jq', '.[0].id'], `${FIRST}\n`],
      [['list', '--jq', '.[0] | {id}'], `{"id":${FIRST}}\n`],
      [['list', '--jq', '[.[] | .id][0:2]'], `[${FIRST},${SECOND}]\n`],
      [['list', '--jq', '.[0:2][] | .id'], `${FIRST}\n${SECOND}\n`],
      [['list', '--jq', '.[0].name'], `${sandbox.pets()[0]!.name}\n`],
      [
        ['list', '--jq', '.[0] | "\\(.name)\\t\\(.status)"'],
        `${sandbox.pets()[0]!.name}\tavailable\n`,
      ],
      [['get', FIRST, '--jq', '.id'], `${FIRST}\n`],
      [['get', FIRST, SECOND, '--jq', '.pet.id'], `${FIRST}\n${SECOND}\n`],
      [['api', '/pets', '--jq', '.[1].id'], `${SECOND}\n`],
      [['quota', '--jq', '.profile'], 'production\n'],
      [['auth', 'status', '--jq', '.valid'], 'true\n'],
      [['profile', 'list', '--jq', '.[].name'], 'production\nstaging\n'],
      [['profile', 'show', 'staging', '--jq', '.name'], 'staging\n'],
      [['list', '--jq', 'empty'], ''],
      [['list', '--jq', '" padded "'], ' padded \n'],
    ];
    for (const [args, stdout] of cases) {
      const result = await runBinary(args, env);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 0, stdout });
      stderrObjects(result);
    }
  });

  it('filters add --file line by line, ids exact', async () => {
    const file = ndjsonFile(['{"name":"J1","categoryId":9223372036854775807}', '{"name":""}']);
    const result = await runBinary(
      ['add', '--file', file, '--yes', '--jq', '[.line, .pet.categoryId // .error.code]'],
      apiEnv(sandbox),
    );
    expect(result.code).toBe(1);
    const [first, second] = result.stdout.trim().split('\n');
    expect(first).toBe('[1,9223372036854775807]');
    expect(second).toMatch(/^\[2,"[a-z_]+"\]$/);
    stderrObjects(result);
  });

  it('prints add and a single get as the filter makes them', async () => {
    const added = await runBinary(
      ['add', '--name', 'Jq', '--category-id', '9223372036854775806', '--jq', '.categoryId'],
      apiEnv(sandbox),
    );
    expect(added).toMatchObject({ code: 0, stdout: '9223372036854775806\n' });
  });

  it('refuses an invalid expression with exit 2 before anything is sent', async () => {
    for (const args of [
      ['list', '--jq', '.['],
      ['get', FIRST, '--jq', '$undefined'],
      ['add', '--name', 'X', '--category-id', '1', '--jq', '.[] |'],
      ['api', '/pets', '--jq', 'nosuchfunction'],
    ]) {
      const before = sandbox.requestLog.length;
      const result = await runBinary(args, apiEnv(sandbox));
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const [only] = stderrObjects(result);
      expect(only).toEqual({
        error: expect.objectContaining({ code: 'jq_invalid', exitCode: 2, status: null }),
      });
      expect(sandbox.requestLog.length).toBe(before);
    }
    const said = stderrObjects(await runBinary(['list', '--jq', '.['], apiEnv(sandbox)));
    expect(said[0]!.error!.message).toBe(
      "--jq '.[' is not a valid jq expression: syntax error, unexpected end of file, line 1, column 2",
    );
  });

  it("gives jq's run-time errors exit 1 and a clear message, after what it printed", async () => {
    const result = await runBinary(['list', '--jq', '.[0].id, .a'], apiEnv(sandbox));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(`${FIRST}\n`);
    const [only] = stderrObjects(result);
    expect(only!.error).toMatchObject({
      code: 'jq_error',
      exitCode: 1,
      message: '--jq failed: Cannot index array with string ("a")',
    });
    const custom = await runBinary(['list', '--jq', 'error("custom")'], apiEnv(sandbox));
    expect(custom.code).toBe(1);
    expect(stderrObjects(custom)[0]!.error!.message).toBe('--jq failed: custom');
  });

  it('is refused for a command without JSON output, before anything happens', async () => {
    const result = await runBinary(
      ['profile', 'set', 'x', '--base-url', 'http://127.0.0.1:1/v1', '--jq', '.'],
      apiEnv(sandbox),
    );
    expect(result.code).toBe(2);
    expect(stderrObjects(result).at(-1)!.error!.message).toBe(
      '--jq does not apply to pets profile set, which prints no JSON; nothing was sent',
    );
  });

  it('shows control characters escaped on a terminal, raw in a pipe', async () => {
    const env = apiEnv(sandbox);
    const hostile = '"a\\u001b[31mb"';
    const tty = await runMain(['list', '--jq', hostile], env, { stdoutIsTTY: true });
    expect(tty.stdout).toBe('a\\u001b[31mb\n');
    const pipe = await runMain(['list', '--jq', hostile], env);
    expect(pipe.stdout).toBe('a\u001b[31mb\n');
  });

  it('works from the files a packed tarball holds, with jq.wasm among them', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    // --ignore-scripts: the suite built dist/ already; prepare would build it again.
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: root,
        // npm keeps a compile cache in $TMPDIR unless told not to.
        env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const files = packed!.files.map((file) => file.path);
    expect(files).toContain('dist/vendor/jq.js');
    expect(files).toContain('dist/vendor/build/jq.wasm');
    // Those files alone, with no node_modules beside them, as npm installs them.
    const installed = tempDir('pets-packed-');
    for (const file of files) {
      mkdirSync(dirname(join(installed, file)), { recursive: true });
      cpSync(join(root, file), join(installed, file));
    }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(installed, 'bin/pets.js'), 'list', '--jq', '.[0].id'],
      { env: { PATH: process.env.PATH, ...apiEnv(sandbox) } },
    );
    expect(stdout).toBe(`${FIRST}\n`);
  });

  it('loads jq from its own file, and only when --jq is given', async () => {
    const dir = tempDir('pets-jq-load-');
    const preload = join(dir, 'loaded.cjs');
    // Writes the files the run required, as it exits.
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_TO, Object.keys(require.cache).join('\\n')));`,
    );
    const loaded = async (args: string[]) => {
      const to = join(dir, `${args.length}.txt`);
      await promisify(execFile)(process.execPath, ['--require', preload, BIN, ...args], {
        env: { PATH: process.env.PATH, LOADED_TO: to, ...apiEnv(sandbox) },
      });
      return readFileSync(to, 'utf8').split('\n');
    };
    const plain = await loaded(['list', '--json']);
    expect(plain.some((file) => file.endsWith('/dist/runtime/cli-stack.js'))).toBe(true);
    expect(plain.filter((file) => file.includes('/dist/') && file.includes('jq'))).toEqual([]);
    const filtered = await loaded(['list', '--jq', '.[0].id', '--json']);
    expect(filtered.filter((file) => file.includes('/dist/') && file.includes('jq'))).toEqual([
      expect.stringMatching(/\/dist\/vendor\/jq\.js$/),
    ]);
  });

  it('filters the line pets sandbox prints', async () => {
    const args = ['--port', '0', '--key', 'jq_sandbox_key', '--jq', '.key'];
    const { code, out } = await runSandboxCommand(args, { env: apiEnv(sandbox) });
    expect(code).toBe(0);
    expect(out).toBe('jq_sandbox_key\n');
  });

  /** The highest resident memory `pid` has had, in MiB, from /proc (Linux). */
  function peakRssMiB(pid: number): number {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) / 1024;
  }

  /**
   * `pets list --jq <filter>` with stdout in a pipe that is read up to the first line, then
   * left full (pets blocks writing, its memory what the filter holds), then closed.
   */
  async function firstLineThenClose(filter: string) {
    const child = spawn(process.execPath, [BIN, 'list', '--jq', filter], {
      env: { PATH: process.env.PATH, ...apiEnv(sandbox) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const started = Date.now();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const first = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
        if (!out.includes('\n')) return;
        child.stdout.pause();
        resolve(out.slice(0, out.indexOf('\n')));
      });
    });
    const firstAfterMs = Date.now() - started;
    const peakMiB = peakRssMiB(child.pid!);
    child.stdout.destroy();
    const code = await exited;
    return { first, firstAfterMs, peakMiB, code, stderr, endedAfterMs: Date.now() - started };
  }

  it('prints results as jq makes them, and a closed stdout stops the filter', async () => {
    // Before: nothing printed for 60 s while memory grew to 744 MB (repeat), or a crash at
    // 2.35 GB (range): jq-wasm held all of jq's output until the filter ended.
    for (const [filter, first] of [
      ['repeat(1)', '1'],
      ['range(1e8)', '0'],
    ] as const) {
      const run = await firstLineThenClose(filter);
      console.log(
        `--jq '${filter}' | head -1: first line after ${run.firstAfterMs} ms, ended after ` +
          `${run.endedAfterMs} ms, peak RSS ${run.peakMiB.toFixed(0)} MiB`,
      );
      expect({ filter, first: run.first, code: run.code, stderr: run.stderr }).toEqual({
        filter,
        first,
        code: 0,
        stderr: '',
      });
      expect(run.peakMiB).toBeLessThan(250);
    }
  });

  it('stops a filter that needs more than 64 MiB as a jq error, never an abort', async () => {
    const child = spawn(process.execPath, [BIN, 'list', '--jq', 'def f: [f]; f'], {
      env: { PATH: process.env.PATH, ...apiEnv(sandbox) },
    });
    let peakMiB = 0;
    const sample = setInterval(() => {
      try {
        peakMiB = Math.max(peakMiB, peakRssMiB(child.pid!));
      } catch {
        // It has just ended.
      }
    }, 10);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(sample);
    console.log(`--jq 'def f: [f]; f': peak RSS seen ${peakMiB.toFixed(0)} MiB`);
    expect(stderr).not.toContain('Aborted');
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    const [only, ...more] = stderrObjects({ code: code ?? -1, stdout, stderr });
    expect(more).toEqual([]);
    expect(only!.error).toMatchObject({
      code: 'jq_error',
      exitCode: 1,
      message: '--jq failed: the filter needed more than 64 MiB of memory',
    });
    // Before: 228 MiB, with jq's heap bound at 256 MiB.
    expect(peakMiB).toBeLessThan(160);
  });

  it('stops a value too large to build as a jq error, though jq builds it as it compiles', async () => {
    // Before: exit 2, "not a valid jq expression: cannot allocate memory".
    const sent = sandbox.requestLog.length;
    for (const filter of ['"a" * 1e9 | length', '.[0].id | tostring * 1e8 | length']) {
      const result = await runBinary(['list', '--json', '--jq', filter], apiEnv(sandbox));
      expect({ filter, code: result.code, stdout: result.stdout }).toEqual({
        filter,
        code: 1,
        stdout: '',
      });
      expect(stderrObjects(result)).toEqual([
        {
          error: expect.objectContaining({
            code: 'jq_error',
            exitCode: 1,
            message: '--jq failed: the filter needed more than 64 MiB of memory',
          }),
        },
      ]);
    }
    // The first is refused before anything is sent; the second only once the list is in.
    expect(sandbox.requestLog.length - sent).toBe(1);
  });

  it('filters a full page of 100 pets within the bound', async () => {
    const filters = [
      'sort_by(.name) | length',
      'group_by(.status) | map(length) | add',
      '[paths] | length > 0',
      'walk(if type == "string" then ascii_upcase else . end) | length',
    ].map((filter) => `(${filter})`);
    const full = await testSandbox({ plan: 'unlimited', seed: 150 });
    const args = ['list', '--limit', '100', '--jq', `[${filters.join(', ')}]`];
    const result = await runBinary(args, apiEnv(full));
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual([100, 100, true, 100]);
  });

  it('lets a batch finish, with its summary, when the filter fails on a record', async () => {
    const file = ndjsonFile(
      ['A', 'B', 'C'].map((name) => `{"name":"Bounded ${name}","categoryId":1}`),
    );
    const before = sandbox.pets().length;
    const result = await runBinary(
      ['add', '--file', file, '--yes', '--jq', 'if .line == 2 then (def f: [f]; f) else .line end'],
      apiEnv(sandbox),
    );
    expect(result.stderr).not.toContain('Aborted');
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '1\n3\n' });
    const said = stderrObjects(result);
    expect(said.find((line) => line.summary)?.summary).toMatchObject({ code: 'batch', created: 3 });
    expect(said.at(-1)!.error).toMatchObject({ code: 'jq_error', exitCode: 1 });
    expect(sandbox.pets().length).toBe(before + 3);
  });

  it('stops, exit 1, at an output line longer than it holds', async () => {
    const result = await runBinary(['list', '--jq', '"x" * 40000000'], apiEnv(sandbox));
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderrObjects(result)[0]!.error).toMatchObject({
      code: 'jq_output_too_long',
      message: '--jq stopped: a line of its output is longer than 32 MiB, the most pets holds',
    });
  });

  it('has input and inputs find no more input, as jq says', async () => {
    const alone = await runBinary(['list', '--jq', 'input'], apiEnv(sandbox));
    expect(alone.code).toBe(1);
    expect(stderrObjects(alone)[0]!.error!.message).toBe('--jq failed: No more inputs');
    const caught = await runBinary(
      ['list', '--jq', '[inputs], (try input catch .)'],
      apiEnv(sandbox),
    );
    expect({ code: caught.code, stdout: caught.stdout }).toEqual({
      code: 0,
      stdout: '[]\nNo more inputs\n',
    });
  });

  it('writes debug and stderr to stderr, as JSON lines', async () => {
    const result = await runBinary(
      ['list', '--jq', '.[0].id | debug, ("raw text" | stderr), debug("msg") | empty'],
      apiEnv(sandbox),
    );
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: '' });
    expect(stderrObjects(result)).toEqual([
      { trace: { code: 'jq_debug', message: `["DEBUG:",${FIRST}]` } },
      { notice: { code: 'jq_stderr', message: 'raw text' } },
      { trace: { code: 'jq_debug', message: '["DEBUG:","msg"]' } },
    ]);
  });

  it('ends the run at halt_error with its message and exit code, as jq does', async () => {
    for (const [filter, code, message] of [
      ['"stop here\n" | halt_error', 5, 'stop here'],
      ['{a: .[0].id} | halt_error(3)', 3, `{"a":${FIRST}}`],
    ] as const) {
      const result = await runBinary(['list', '--jq', filter], apiEnv(sandbox));
      expect({ filter, code: result.code, stdout: result.stdout }).toEqual({
        filter,
        code,
        stdout: '',
      });
      expect(stderrObjects(result)).toEqual([
        { error: { code: 'jq_halt', message, exitCode: code, status: null } },
      ]);
    }
  });

  // jq has no time limit, and neither has pets: a filter that runs long but ends (a sum over
  // 1e12 numbers) is the user's to stop, at once, from the keyboard or with kill.
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('lets %s end a filter that runs on and on, at once', async (signal, code) => {
    const filter = 'reduce range(1e12) as $i (0; . + $i)';
    const child = spawn(process.execPath, [BIN, 'list', '--debug', '--jq', filter], {
      env: { PATH: process.env.PATH, ...apiEnv(sandbox) },
    });
    // Should this test fail, the filter must not run on after it.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    // --debug says when the answer is in: the filter runs next, and holds the thread.
    const answered = new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
        if (stderr.includes('< 200 in')) resolve();
      }),
    );
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    await answered;
    // Again until it ends: one that lands before jq starts is pets's own to handle.
    const sent = performance.now();
    const again = setInterval(() => child.kill(signal), 200);
    again.unref();
    child.kill(signal);
    const [exitCode, exitSignal] = await exited;
    clearInterval(again);
    console.log(
      `--jq '${filter}': ended ${Math.round(performance.now() - sent)} ms after ${signal}`,
    );
    expect(exitCode === code || exitSignal === signal).toBe(true);
  });

  it.skipIf(!hasScript)(
    'lets Ctrl-C typed at a terminal end a filter that runs on and on',
    async () => {
      const filter = 'reduce range(1e12) as $i (0; . + $i)';
      const term = onTerminal(['list', '--debug', '--jq', filter], apiEnv(sandbox));
      await term.waitFor('< 200 in');
      const typed = performance.now();
      const again = setInterval(() => term.type('\u0003'), 200);
      term.type('\u0003');
      const code = await term.exited;
      clearInterval(again);
      console.log(
        `--jq '${filter}' at a terminal: ended ${Math.round(performance.now() - typed)} ms after Ctrl-C`,
      );
      expect(code).toBe(130);
    },
  );
});
