import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { apiEnv, DEAD_PORT } from '../helpers/api-env.js';
import { tempDir } from '../helpers/config-dir.js';
import { runBinary } from '../helpers/run-binary.js';
import { hasScript, KEYS, onTerminal } from '../helpers/terminal.js';
import { testSandbox } from '../helpers/sandbox.js';

// Every flag does what it says, or is refused: through the built binary, counting what the
// sandbox received.

let sandbox: RunningSandbox;
let env: Record<string, string>;

beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited' });
  env = apiEnv(sandbox);
});

/** What the sandbox received from here on: `received()` lists each method and path. */
function countFromNow(): { posts: () => number; received: () => string[] } {
  const start = sandbox.requestLog.length;
  const received = () => sandbox.requestLog.slice(start).map((one) => `${one.method} ${one.path}`);
  return { received, posts: () => received().filter((line) => line.startsWith('POST')).length };
}

describe('add --dry-run for one pet', () => {
  it('shows the request, the profile, host and badge of production, and sends nothing', async () => {
    const sent = countFromNow();
    const result = await runBinary(
      ['--profile', 'production', 'add', '--name', 'DryRunProd', '--category-id', '1', '--dry-run'],
      env,
    );
    expect(result).toMatchObject({ code: 0 });
    const host = new URL(sandbox.baseUrl).host;
    expect(result.stdout).toBe(
      'method\tPOST\n' +
        `url\t${sandbox.baseUrl}/pets\n` +
        'body\t{"name":"DryRunProd","categoryId":1}\n' +
        'profile\tproduction\n' +
        `host\t${host}\n` +
        'protected\tyes (a real run shows the badge and asks nothing)\n' +
        'sent\tnothing (dry run)\n',
    );
    expect(result.stderr).toContain(`PROTECTED  production ${host}`);
    expect(sent.received()).toEqual([]);
  });

  it('prints one JSON object under --json, int64 exact', async () => {
    const sent = countFromNow();
    const result = await runBinary(
      ['add', '--name', 'Big', '--category-id', '9007199254740993', '--status', 'sold'],
      env,
    ).then(() =>
      runBinary(
        ['add', '--name', 'Big', '--category-id', '9007199254740993', '--dry-run', '--json'],
        env,
      ),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `{"dryRun":true,"method":"POST","url":"${sandbox.baseUrl}/pets",` +
        '"body":{"name":"Big","categoryId":9007199254740993},"profile":"production",' +
        `"host":"${new URL(sandbox.baseUrl).host}","protected":true,"sent":false}\n`,
    );
    // The one POST is the real add before it.
    expect(sent.posts()).toBe(1);
  });

  it('refuses an invalid value with exit 2, sending nothing', async () => {
    const sent = countFromNow();
    const result = await runBinary(
      ['add', '--name', 'X', '--category-id', 'seven', '--dry-run'],
      env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--category-id');
    expect(sent.received()).toEqual([]);
  });
});

describe('flags that act only with another', () => {
  it('refuses the batch flags without --file, naming each and --file, with nothing sent', async () => {
    const dir = tempDir('pets-flags-');
    const sent = countFromNow();
    const result = await runBinary(
      [
        ...['add', '--name', 'X', '--category-id', '1', '--format', 'csv'],
        ...['--journal', join(dir, 'x.j'), '--concurrency', '3', '--retry-unknown', '--yes'],
      ],
      env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: --format, --concurrency, --journal, --retry-unknown and --yes only apply with --file; nothing was sent',
    );
    expect(sent.received()).toEqual([]);
    expect(existsSync(join(dir, 'x.j'))).toBe(false);
  });

  it.each([
    ['--yes'],
    ['--retry-unknown'],
    ['--new-run'],
    ['--concurrency', '2'],
    ['--format', 'json'],
  ])('refuses %s alone without --file', async (...flag) => {
    const sent = countFromNow();
    const result = await runBinary(['add', '--name', 'X', '--category-id', '1', ...flag], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${flag[0]} only applies with --file`);
    expect(sent.posts()).toBe(0);
  });
});

describe('the global --profile on pets sandbox', () => {
  it('is refused, exit 2, with no server started and the profile untouched', async () => {
    const own = { PETS_CONFIG_DIR: tempDir('pets-flags-') };
    const production = ['profile', 'set', 'production', '--base-url', 'https://api.example.com/v1'];
    expect((await runBinary(production, own)).code).toBe(0);
    const result = await runBinary(['--profile', 'production', 'sandbox', '--port', '0'], own);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: --profile does not apply to pets sandbox, which saves its profile under --save-profile; nothing was sent',
    );
    expect(result.stderr).toContain('use --save-profile production');
    const shown = await runBinary(['profile', 'show', 'production', '--json'], own);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      baseUrl: 'https://api.example.com/v1',
      baseUrlSource: 'config',
    });
  });
});

describe('--yes in a batch dry run', () => {
  it('says what a real run on a protected profile would ask, with and without it', async () => {
    const file = join(tempDir('pets-dry-yes-'), 'pets.ndjson');
    writeFileSync(file, '{"name":"Y","categoryId":1}\n');
    const sent = countFromNow();
    const asks = await runBinary(['add', '--file', file, '--dry-run'], env);
    expect(asks.stdout).toContain(
      "protected\tyes; a real run asks you to type the profile's name (in a pipe, it needs --yes)\n",
    );
    const yes = await runBinary(['add', '--file', file, '--dry-run', '--yes'], env);
    expect(yes.stdout).toContain('protected\tyes; with --yes a real run asks nothing\n');
    const json = await runBinary(['add', '--file', file, '--dry-run', '--yes', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ protected: true, asks: false });
    const staging = await runBinary(['add', '--file', file, '--dry-run', '--json'], {
      ...env,
      PETS_PROFILE: 'staging',
    });
    expect(JSON.parse(staging.stdout)).toMatchObject({ protected: false, asks: false });
    expect(sent.posts()).toBe(0);
  });
});

describe('pets api writes on a protected profile', () => {
  const production = () => ({ ...env, PETS_PROFILE: 'production' });

  it.each([
    ['X-HTTP-Method-Override: DELETE', 'GET (DELETE by its header)'],
    ['x-http-method: put', 'GET (PUT by its header)'],
    ['X-Method-Override:PATCH', 'GET (PATCH by its header)'],
  ])('refuses a GET whose header %s names a write, with nothing sent', async (header, acts) => {
    const sent = countFromNow();
    const result = await runBinary(['api', '/pets', '-H', header], production());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: profile "production" is protected: a ${acts} to it needs --yes here`,
    );
    expect(sent.received()).toEqual([]);
    const confirmed = await runBinary(['api', '/pets', '-H', header, '--yes'], production());
    expect(confirmed.code).toBe(0);
    expect(sent.received()).toEqual(['GET /v1/pets']);
  });

  it('takes a GET with an override header that names a read as a read', async () => {
    const result = await runBinary(
      ['api', '/pets', '-H', 'X-HTTP-Method-Override: GET'],
      production(),
    );
    expect(result.code).toBe(0);
  });

  it('refuses a POST implied by -f in a pipe, with nothing sent', async () => {
    const sent = countFromNow();
    const result = await runBinary(
      ['api', '/pets', '-f', 'limit=100', '-f', 'page=2'],
      production(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: profile "production" is protected: a POST to it needs --yes here',
    );
    expect(result.stderr).toContain(
      'Nobody can be asked to confirm (stdin is not a terminal); nothing was sent.',
    );
    expect(sent.received()).toEqual([]);
  });

  it.each([
    [['-X', 'DELETE', '/pets/1'], 'DELETE'],
    [['-F', 'categoryId=1', '/pets'], 'POST'],
    [['--input', '-', '/pets'], 'POST'],
    [['-X', 'PUT', '/pets/1', '--no-input'], 'PUT'],
  ])('refuses %j without --yes', async (args, method) => {
    const sent = countFromNow();
    const result = await runBinary(['api', ...args], production(), '{"name":"A","categoryId":1}');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`a ${method} to it needs --yes here`);
    expect(sent.received()).toEqual([]);
  });

  it('sends with --yes, after the badge', async () => {
    const sent = countFromNow();
    const result = await runBinary(
      ['api', '/pets', '-f', 'name=Yes', '-F', 'categoryId=1', '--yes'],
      production(),
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('PROTECTED  production');
    expect(sent.posts()).toBe(1);
  });

  it('asks nothing of a read, nor of a write to an unprotected profile', async () => {
    const sent = countFromNow();
    expect(
      (await runBinary(['api', '/pets', '-X', 'GET', '-f', 'limit=1'], production())).code,
    ).toBe(0);
    const staging = { ...env, PETS_PROFILE: 'staging' };
    expect(
      (await runBinary(['api', '/pets', '-f', 'name=S', '-F', 'categoryId=1'], staging)).code,
    ).toBe(0);
    expect(sent.received()).toEqual(['GET /v1/pets?limit=1', 'POST /v1/pets']);
  });

  it('refuses --yes on a read: it would do nothing', async () => {
    const sent = countFromNow();
    const result = await runBinary(['api', '/pets', '--yes'], production());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--yes only applies to a write');
    expect(sent.received()).toEqual([]);
  });

  describe.skipIf(!hasScript)('at a terminal', { timeout: 60_000 }, () => {
    it('sends once the profile name is typed', async () => {
      const sent = countFromNow();
      const term = onTerminal(['api', '-X', 'DELETE', '/pets/424242'], production());
      await term.waitFor('to go on:');
      term.type(`production${KEYS.enter}`);
      // The sandbox has no DELETE: the answer is a failure (exit 1), but the DELETE was sent.
      expect(await term.exited).toBe(1);
      expect(sent.received()).toEqual(['DELETE /v1/pets/424242']);
    });

    it('sends nothing when another name is typed', async () => {
      const sent = countFromNow();
      const term = onTerminal(['api', '/pets', '-f', 'name=No'], production());
      await term.waitFor('to go on:');
      term.type(`staging${KEYS.enter}`);
      expect(await term.exited).toBe(2);
      expect(term.screen()).toContain('that is not the profile name; nothing was sent');
      expect(sent.posts()).toBe(0);
    });
  });
});

describe('add --file reads the format from the content', () => {
  it('pets list --json | pets add --file - --journal copy.j copies the pets, with one notice for the ids', async () => {
    const dir = tempDir('pets-copy-');
    await runBinary(['add', '--name', 'CopyA', '--category-id', '1'], env);
    await runBinary(['add', '--name', 'CopyB', '--category-id', '2', '--status', 'sold'], env);
    const listed = await runBinary(['list', '--json', '--limit', '2'], env);
    const pets = JSON.parse(listed.stdout) as Array<{ id: number }>;
    expect(pets).toHaveLength(2);
    const sent = countFromNow();
    const copy = await runBinary(
      ['add', '--file', '-', '--journal', join(dir, 'copy.j'), '--yes'],
      env,
      listed.stdout,
    );
    expect(copy.stderr).toContain(
      '2 records carry an id; ids are ignored, as the server assigns them',
    );
    expect(copy.code).toBe(0);
    expect(sent.posts()).toBe(2);
    // The copies are new pets with the same fields, under new ids.
    const copies = JSON.parse(
      (await runBinary(['list', '--json', '--limit', '100'], env)).stdout,
    ) as Array<{ id: number; name: string }>;
    for (const pet of pets as Array<{ id: number; name: string }>) {
      expect(copies.filter((one) => one.name === pet.name).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('under --json the notice is one JSON line with its count', async () => {
    const dir = tempDir('pets-copy-');
    const result = await runBinary(
      ['add', '--file', '-', '--journal', join(dir, 'j'), '--yes', '--json'],
      env,
      '[{"id":1,"name":"J1","categoryId":1},{"name":"J2","categoryId":1}]',
    );
    expect(result.code).toBe(0);
    const notices = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>)
      .filter((line) => line.notice?.code === 'ids_ignored');
    expect(notices).toEqual([
      {
        notice: {
          code: 'ids_ignored',
          count: 1,
          message: '1 record carries an id; ids are ignored, as the server assigns them',
        },
      },
    ]);
  });

  it.each([
    ['  [{"name":"A","categoryId":1}]', 'json'],
    ['{"name":"A","categoryId":1}\n', 'ndjson'],
    ['name,categoryId\nA,1\n', 'csv'],
  ])(
    'the dry run names the format %j reads as (%s), from stdin and a file with no known extension',
    async (content, format) => {
      const file = join(tempDir('pets-format-'), 'pets.txt');
      writeFileSync(file, content);
      const sent = countFromNow();
      for (const args of [
        ['--file', file],
        ['--file', '-'],
      ]) {
        const result = await runBinary(['add', ...args, '--dry-run'], env, content);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`(${format}, from its first bytes)`);
        expect(result.stdout).toMatch(/records\t1 \(1 valid, 0 invalid\)/);
        const json = await runBinary(['add', ...args, '--dry-run', '--json'], env, content);
        expect(JSON.parse(json.stdout)).toMatchObject({ format, formatFrom: 'content' });
      }
      expect(sent.posts()).toBe(0);
    },
  );
});

describe('the guided path', () => {
  const fresh = () => ({ PETS_CONFIG_DIR: join(tempDir('pets-fresh-'), 'config') });

  it.each([[['list']], [['quota']], [['auth', 'status']]])(
    'on a fresh config, %j names pets auth login first',
    async (args) => {
      const result = await runBinary(args, fresh());
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'error: profile "production" has no base URL\n' +
          'Run: pets auth login (it asks for the base URL and the key), or in a script: pets profile set production --base-url https://<host>/v1\n',
      );
    },
  );

  it.each([['profile'], ['auth']])(
    'pets %s alone prints its help on stdout and exits 0',
    async (noun) => {
      const result = await runBinary([noun], fresh());
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(new RegExp(`^Usage: pets ${noun} \\[options\\] \\[command\\]`));
      expect(result.stdout).toContain('Commands:');
    },
  );

  it('an unknown word after a noun is still an error', async () => {
    const result = await runBinary(['profile', 'nope'], fresh());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: unknown command 'nope'");
  });

  it('--json followed by a word gets the hint to use --jq', async () => {
    const sent = countFromNow();
    const json = await runBinary(['list', '--json', 'id,name'], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!)).toMatchObject({
      error: { hint: "--json takes no field list; to pick fields use --jq '.[] | {id, name}'" },
    });
    expect(sent.received()).toEqual([]);
  });
});

describe('small truths', () => {
  it('the journal-mismatch error shows each key as **** and its last 4 characters', async () => {
    const dir = tempDir('pets-keys-');
    const file = join(dir, 'pets.ndjson');
    writeFileSync(file, '{"name":"K","categoryId":1}\n');
    const journal = join(dir, 'k.j');
    const first = await runBinary(['add', '--file', file, '--journal', journal, '--yes'], env);
    expect(first.code).toBe(0);
    const other = await runBinary(['add', '--file', file, '--journal', journal, '--yes'], {
      ...env,
      PETS_API_KEY: 'another_key_wxyz',
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`(key ****${sandbox.key.slice(-4)}), not to`);
    expect(other.stderr).toContain('(key ****wxyz)');
    expect(other.stderr).not.toMatch(/key [0-9a-f]{8}…/);
  });

  it('the text dry run names the command that runs it, with --concurrency and --max-wait', async () => {
    const file = join(tempDir('pets-run-'), 'pets.ndjson');
    writeFileSync(file, '{"name":"R","categoryId":1}\n');
    const result = await runBinary(
      ['--max-wait', '90', 'add', '--file', file, '--dry-run', '--concurrency', '3'],
      env,
    );
    expect(result.stdout).toContain(
      `command\tpets --profile production --max-wait 90 add --file ${file} --concurrency 3\n`,
    );
  });

  it('the resume command keeps --json, --jq and --quiet', async () => {
    const file = join(tempDir('pets-resume-'), 'pets.ndjson');
    writeFileSync(file, '{"name":"R","categoryId":1}\n');
    const plan = async (...flags: string[]) =>
      (
        JSON.parse(
          (await runBinary(['add', '--file', file, '--dry-run', '--json', ...flags], env)).stdout,
        ) as { command: string }
      ).command;
    expect(await plan()).toMatch(/ add --file \S+ --json$/);
    expect(await plan('--quiet')).toMatch(/ --json --quiet$/);
    const jq = await runBinary(['add', '--file', file, '--dry-run', '--jq', '.command'], env);
    expect(jq.stdout.trim()).toMatch(/ --jq \.command$/);
  });
});

describe('what was sent, said truly', () => {
  it('auth status says the GET it sent and the answer, as --debug traces them', async () => {
    const sent = countFromNow();
    const result = await runBinary(['auth', 'status', '--debug'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'sent\tGET /pets?limit=1 to check the key; the server answered 200\n',
    );
    expect(result.stdout).toContain('source\tasked the server\n');
    expect(result.stdout).not.toContain('nothing sent');
    expect(result.stderr).toMatch(/> GET \S+\/pets\?limit=1/);
    expect(result.stderr).toMatch(/< 200/);
    expect(sent.received()).toEqual(['GET /v1/pets?limit=1']);
  });

  it('auth status with a refused key says the 401 that came back', async () => {
    const result = await runBinary(['auth', 'status', '--debug'], {
      ...env,
      PETS_API_KEY: 'refused_key_0000',
    });
    expect(result.code).toBe(4);
    expect(result.stdout).toContain('the server answered 401');
    expect(result.stderr).toMatch(/< 401/);
  });

  it('a usage error says nothing was sent, and --debug traces no request', async () => {
    const sent = countFromNow();
    const result = await runBinary(
      ['add', '--name', 'X', '--category-id', '1', '--yes', '--debug'],
      env,
    );
    expect(result.stderr).toContain('nothing was sent');
    expect(result.stderr).not.toMatch(/^> /m);
    expect(sent.received()).toEqual([]);
  });
});

/** A loopback address with nothing listening: port 1, which no test binds (see DEAD_PORT). */
const DEAD_BASE_URL = `http://127.0.0.1:${DEAD_PORT}/v1`;

/** The requests --debug traced as sent (`> GET …`) and the answers (`< 200`). */
const traced = (stderr: string) => ({
  sent: stderr.split('\n').filter((line) => line.startsWith('> ')).length,
  answered: stderr.split('\n').filter((line) => /^< \d{3}\b/.test(line)).length,
});

describe('every message about what was sent, against the --debug trace', () => {
  const records = () => {
    const file = join(tempDir('pets-sent-'), 'pets.ndjson');
    writeFileSync(file, '{"name":"S","categoryId":1}\n');
    return file;
  };

  it('a batch dry run that reached the server says the one GET it sent', async () => {
    const sent = countFromNow();
    const result = await runBinary(['add', '--file', records(), '--dry-run', '--debug'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('sent\tone GET /pets?limit=1, to learn the quota; no create\n');
    expect(traced(result.stderr)).toEqual({ sent: 1, answered: 1 });
    expect(sent.received()).toEqual(['GET /v1/pets?limit=1']);
  });

  it('a batch dry run with nothing listening says it sent nothing, though it tried', async () => {
    const result = await runBinary(['add', '--file', records(), '--dry-run', '--debug'], {
      ...env,
      PETS_BASE_URL: DEAD_BASE_URL,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'sent\tnothing: the GET /pets?limit=1 to learn the quota did not reach the server\n',
    );
    expect(result.stdout).not.toContain('one GET');
    // Tried, as the trace shows, and refused before a byte left; the plan says why it lacks the quota.
    expect(result.stderr).toMatch(/connection refused/);
    expect(result.stderr).toMatch(/warning: could not learn the quota: /);
    expect(traced(result.stderr).answered).toBe(0);
    const json = await runBinary(['add', '--file', records(), '--dry-run', '--json'], {
      ...env,
      PETS_BASE_URL: DEAD_BASE_URL,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ quota: { asked: false } });
  });

  it('a batch dry run whose quota is known says it sent nothing, and traced nothing', async () => {
    await runBinary(['quota'], env);
    const sent = countFromNow();
    const result = await runBinary(['add', '--file', records(), '--dry-run', '--debug'], env);
    expect(result.stdout).toContain('sent\tnothing\n');
    expect(traced(result.stderr).sent).toBe(0);
    expect(sent.received()).toEqual([]);
  });

  it('pets quota says when it asked the server, and when nothing was sent', async () => {
    const limited = await testSandbox({ plan: 'free' });
    const limitedEnv = apiEnv(limited);
    const first = await runBinary(['quota', '--debug'], limitedEnv);
    expect(first.stdout).toContain('source\tasked the server\n');
    expect(traced(first.stderr)).toEqual({ sent: 1, answered: 1 });
    const second = await runBinary(['quota', '--debug'], limitedEnv);
    expect(second.stdout).toContain('source\tlast answer (nothing sent)\n');
    expect(traced(second.stderr).sent).toBe(0);
    expect(limited.requestLog).toHaveLength(1);
  });

  it('a single add says nothing reached the server when nothing listens', async () => {
    const result = await runBinary(['add', '--name', 'N', '--category-id', '1', '--debug'], {
      ...env,
      PETS_PROFILE: 'staging',
      PETS_BASE_URL: DEAD_BASE_URL,
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('nothing reached the server: the pet was not created');
    expect(traced(result.stderr).answered).toBe(0);
  });

  it('a single add --dry-run says it sent nothing, and traced nothing', async () => {
    const sent = countFromNow();
    const result = await runBinary(
      ['add', '--name', 'D', '--category-id', '1', '--dry-run', '--debug'],
      env,
    );
    expect(result.stdout).toContain('sent\tnothing (dry run)\n');
    expect(traced(result.stderr).sent).toBe(0);
    expect(sent.received()).toEqual([]);
  });

  it('a stop at the rate limit says nothing was sent, and traced nothing', async () => {
    const limited = await testSandbox({ plan: 'free', rpm: 1 });
    const limitedEnv = apiEnv(limited);
    expect((await runBinary(['list'], limitedEnv)).code).toBe(0);
    const result = await runBinary(['--max-wait', '0', 'list', '--debug'], limitedEnv);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('nothing was sent');
    expect(traced(result.stderr).sent).toBe(0);
    expect(limited.requestLog).toHaveLength(1);
  });

  it('a batch stopped by a used-up quota says how many it sent, as the trace counts them', async () => {
    const limited = await testSandbox({ plan: 'free', rpd: 3 });
    const file = join(tempDir('pets-sent-'), 'pets.ndjson');
    const rows = Array.from({ length: 5 }, (_, i) => `{"name":"Q${i}","categoryId":1}`);
    writeFileSync(file, rows.join('\n'));
    const result = await runBinary(['add', '--file', file, '--debug'], {
      ...apiEnv(limited),
      PETS_PROFILE: 'staging',
    });
    expect(result.code).toBe(5);
    const posts = result.stderr.split('\n').filter((line) => line.startsWith('> POST'));
    expect(posts).toHaveLength(3);
    expect(result.stderr).toContain('pets stopped after sending 3 requests');
    expect(result.stderr).toMatch(/created 3, failed 0, skipped 0, unknown 0, not sent 2/);
    expect(limited.requestLog.filter((one) => one.method === 'POST')).toHaveLength(3);
  });

  it('a refused pets api write says nothing was sent, and traced nothing', async () => {
    const result = await runBinary(['api', '/pets', '-f', 'name=T', '--debug'], {
      ...env,
      PETS_PROFILE: 'production',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nothing was sent');
    expect(traced(result.stderr).sent).toBe(0);
  });
});

describe.skipIf(!hasScript)('the progress line', { timeout: 60_000 }, () => {
  it('counts to the records to send, as the plan does, not to the invalid rows', async () => {
    const file = join(tempDir('pets-progress-'), 'pets.ndjson');
    const rows = Array.from({ length: 6 }, (_, i) => `{"name":"P${i}","categoryId":1}`);
    writeFileSync(file, [...rows, '{"name":""}', 'not json'].join('\n'));
    const term = onTerminal(['add', '--file', file], { ...env, PETS_PROFILE: 'staging' });
    expect(await term.exited).toBe(1);
    const screen = term.screen();
    expect(screen).toContain('6 to send');
    expect(screen).toMatch(/\b\d\/6 /);
    expect(screen).not.toMatch(/\b\d\/8\b/);
  });
});
