import { beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../../src/json/int64-json.js';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { apiEnv } from '../../helpers/api-env.js';
import { runMain } from '../../helpers/run-main.js';
import { testSandbox } from '../../helpers/sandbox.js';

const BIG = 9007199254740993n;
let sandbox: RunningSandbox;
let env: Record<string, string>;

// Each test has a sandbox of its own, empty until it adds what it lists or gets.
beforeEach(async () => {
  sandbox = await testSandbox({ firstId: BIG, plan: 'unlimited' });
  env = apiEnv(sandbox);
});

async function addPet(name: string, status: string) {
  const result = await runMain(
    ['add', '--name', name, '--category-id', '7', '--status', status, '--json'],
    env,
  );
  expect(result.code).toBe(0);
  // JSON.parse would round these ids: read them as the CLI writes them.
  return parseJson(result.stdout) as { id: bigint };
}

describe('pets list', () => {
  it('prints an empty list as nothing, with a notice, and exit 0', async () => {
    expect(await runMain(['list'], env)).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No pets found.\n',
    });
    // A script gets [] and nothing on stderr.
    expect(await runMain(['list', '--json'], env)).toEqual({
      code: 0,
      stdout: '[]\n',
      stderr: '',
    });
    expect((await runMain(['list', '--quiet'], env)).stderr).toBe('');
  });

  it('prints a table on a terminal, TSV in a pipe and exact JSON with --json', async () => {
    await addPet('Tablecat', 'pending');
    const table = await runMain(
      ['list', '--status', 'pending'],
      { ...env, NO_COLOR: '1' },
      { stdoutIsTTY: true },
    );
    expect(table.stdout).toMatch(/│ ID\s+│ NAME\s+│ CATEGORY\s+│ STATUS/);
    expect(table.stdout).toContain('Tablecat');
    expect(table.stdout).not.toContain('\u001b');
    const colored = await runMain(['list', '--status', 'pending'], env, { stdoutIsTTY: true });
    expect(colored.stdout).toContain('\u001b[33mpending\u001b[39m');
    const noColorFlag = await runMain(['list', '--status', 'pending', '--no-color'], env, {
      stdoutIsTTY: true,
    });
    expect(noColorFlag.stdout).not.toContain('\u001b');
    const tsv = await runMain(['list', '--status', 'pending'], env);
    expect(tsv.stdout.split('\n')[0]).toBe('ID\tNAME\tCATEGORY\tSTATUS');
    expect(tsv.stdout).toMatch(/\tTablecat\t7\tpending\n/);
    expect(tsv.stdout).not.toContain('\u001b');
    const json = await runMain(['list', '--status', 'pending', '--json'], env);
    expect(json.stdout).toMatch(
      /^\[\{"id":\d+,"name":"Tablecat","categoryId":7,"status":"pending"\}/,
    );
  });

  it('filters by status and honours --limit', async () => {
    await addPet('Sold1', 'sold');
    await addPet('Sold2', 'sold');
    const result = await runMain(['list', '--status', 'sold', '--limit', '1', '--json'], env);
    const pets = JSON.parse(result.stdout) as { status: string }[];
    expect(pets).toHaveLength(1);
    expect(pets[0]?.status).toBe('sold');
  });

  it('accepts global options before or after the command', async () => {
    await addPet('Either', 'available');
    const before = await runMain(['--json', 'list', '--limit', '1'], env);
    const after = await runMain(['list', '--limit', '1', '--json'], env);
    expect(before.stdout).toMatch(/^\[/);
    expect(after.stdout).toBe(before.stdout);
  });

  it('refuses a bad --limit or --status before sending anything', async () => {
    const sent = sandbox.requestLog.length;
    const limit = await runMain(['list', '--limit', '101'], env);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('integer from 1 to 100');
    const status = await runMain(['list', '--status', 'lost'], env);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('available, pending, sold');
    expect(sandbox.requestLog.length).toBe(sent);
  });

  it('traces requests with --debug, hiding the key', async () => {
    const result = await runMain(['list', '--limit', '1', '--debug'], env);
    expect(result.stderr).toMatch(/> GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=1/);
    expect(result.stderr).toContain('authorization: Bearer ***');
    expect(result.stderr).toMatch(/< 200 in \d+ ms/);
    expect(result.stderr).not.toContain(sandbox.key);
  });
});

describe('pets add', () => {
  it('creates a pet and prints it with int64 ids exact', async () => {
    const result = await runMain(
      ['add', '--name', 'Big', '--category-id', '9223372036854775807', '--json'],
      env,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^\{"id":\d{16,},"name":"Big","categoryId":9223372036854775807\}\n$/,
    );
  });

  it.each([
    [['add', '--name', '', '--category-id', '1'], /must not be empty/],
    [['add', '--name', 'A', '--category-id', '9223372036854775808'], /int64/],
    [['add', '--name', 'A', '--category-id', '1', '--status', 'lost'], /available, pending, sold/],
    [['add', '--category-id', '1'], /--name/],
  ])('refuses %j with exit 2', async (args, why) => {
    const result = await runMain(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(why);
  });
});

describe('pets get', () => {
  it("prints one pet, with one deprecation notice naming the server's Sunset date", async () => {
    const { id } = await addPet('Getme', 'available');
    const result = await runMain(['get', String(id), '--json'], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'Getme' });
    const notices = result.stderr.trim().split('\n');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('the server removes it on 2030-12-05');
  });

  it('stays silent with --quiet or PETS_NO_DEPRECATION_WARNING=1', async () => {
    const { id } = await addPet('Quiet', 'available');
    expect((await runMain(['get', String(id), '-q'], env)).stderr).toBe('');
    expect(
      (await runMain(['get', String(id)], { ...env, PETS_NO_DEPRECATION_WARNING: '1' })).stderr,
    ).toBe('');
  });

  it('exits 3 for a missing pet', async () => {
    const result = await runMain(['get', '424242', '-q'], env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/no pet with id 424242 \(404\)/);
  });

  it('prints NDJSON for several ids, a line per id in order, and exits 3 when one is missing', async () => {
    const a = await addPet('First', 'available');
    const b = await addPet('Second', 'sold');
    const result = await runMain(
      ['get', String(a.id), '424242', String(b.id), '--json', '-q'],
      env,
    );
    expect(result.code).toBe(3);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => parseJson(line));
    expect(lines[0]).toMatchObject({ line: 1, pet: { name: 'First' } });
    expect(lines[1]).toMatchObject({ line: 2, error: { status: 404, exitCode: 3 } });
    expect(lines[2]).toMatchObject({ line: 3, pet: { name: 'Second' } });
  });

  it('reads ids from stdin with -', async () => {
    const a = await addPet('Piped', 'available');
    const result = await runMain(['get', '-', '-q'], env, { stdin: `${a.id}\n\n` });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('\tPiped\t');
  });

  it('reports a non-integer id on stdin per line, and refuses one in argv with exit 2', async () => {
    const stdin = await runMain(['get', '-', '-q'], env, { stdin: '12\nabc\n' });
    expect(stdin.stderr).toContain('line 2: not an int64 pet id');
    expect(stdin.code).toBe(2);
    const argv = await runMain(['get', '1.5'], env);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toContain('petId "1.5"');
  });
});

describe('errors with --json', () => {
  it('writes one JSON object on stderr with the exit code', async () => {
    const result = await runMain(['get', '424242', '--json', '-q'], env);
    expect(result.stdout).toBe('');
    const { error } = JSON.parse(result.stderr);
    expect(error).toMatchObject({ code: 'not_found', status: 404, exitCode: 3 });
    expect(error.message).toBe('no pet with id 424242 (404)');
    expect(error.detail).toContain('424242');
  });

  it('reports usage errors as JSON too', async () => {
    const result = await runMain(['list', '--limit', 'x', '--json'], env);
    expect(JSON.parse(result.stderr).error).toMatchObject({
      code: 'usage_error',
      status: null,
      exitCode: 2,
    });
  });
});
