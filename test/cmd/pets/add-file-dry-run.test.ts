import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../../src/json/int64-json.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { apiEnv } from '../../helpers/api-env.js';
import { runMain } from '../../helpers/run-main.js';
import { tempDir } from '../../helpers/config-dir.js';

let sandbox: RunningSandbox;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  sandbox = await startSandbox({ plan: 'free' });
  dir = tempDir('pets-dry-');
  env = apiEnv(sandbox, { PETS_PROFILE: 'staging' });
});
afterEach(() => sandbox.close());

const posts = () => sandbox.requestLog.filter((entry) => entry.method === 'POST').length;

function csv(name: string, rows: number, extra = ''): string {
  const path = join(dir, name);
  const lines = Array.from({ length: rows }, (_, i) => `Pet ${i},1`);
  writeFileSync(path, `name,categoryId\n${lines.join('\n')}\n${extra}`);
  return path;
}

describe('pets add --file --dry-run', () => {
  it('reads every record, sends no create, and estimates the time under the quota', async () => {
    const path = csv('pets.csv', 300);
    const result = await runMain(['add', '--file', path, '--dry-run'], env);
    expect(result.code).toBe(0);
    expect(posts()).toBe(0);
    // Nothing was known of the key: one GET asked, and the plan says so.
    expect(sandbox.requestLog.map((entry) => entry.method)).toEqual(['GET']);
    expect(result.stdout).toMatch(/records\s+300 \(300 valid, 0 invalid\)/);
    expect(result.stdout).toMatch(/to send\s+300/);
    expect(result.stdout).toMatch(/quota\s+60 per minute, 59 left until \d\d:\d\d:\d\d/);
    expect(result.stdout).toMatch(/time\s+about 5 min/);
    expect(result.stdout).toMatch(/sent\s+one GET \/pets\?limit=1, to learn the quota; no create/);
    // No journal is left behind by a run that sent nothing.
    expect(existsSync(`${path}.pets-journal`)).toBe(false);
  });

  it('reports invalid records by line, counts records not lines, and exits 1 as a run would', async () => {
    const path = csv('bad.csv', 3, '"Two\nlines",1\n,2\nOk,notanumber\n');
    const result = await runMain(['add', '--file', path, '--dry-run'], env);
    expect(result.code).toBe(1);
    expect(posts()).toBe(0);
    expect(result.stdout).toMatch(/records\s+6 \(4 valid, 2 invalid\)/);
    expect(result.stdout).toMatch(/\n7\s+\S*name/);
    expect(result.stdout).toMatch(/\n8\s+\S*categoryId/);
  });

  it('refuses a misspelt column or key, in the dry run and the run, unless told to ignore it (issue 42)', async () => {
    const misspelt = join(dir, 'misspelt.csv');
    writeFileSync(misspelt, 'name,categoryId,stauts\nRex,1,sold\n');
    const ndjson = join(dir, 'misspelt.ndjson');
    writeFileSync(ndjson, '{"name":"Rex","categoryId":1,"stauts":"sold"}\n');
    for (const path of [misspelt, ndjson]) {
      for (const run of [['--dry-run'], []]) {
        const result = await runMain(['add', '--file', path, ...run], env);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain('"stauts" (did you mean "status"?)');
      }
    }
    expect(posts()).toBe(0);
    const ignored = await runMain(['add', '--file', misspelt, '--ignore-unknown', '-q'], env);
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(posts()).toBe(1);
  });

  it('says what the journal holds, and plans only the rest', async () => {
    const path = csv('half.csv', 10);
    expect((await runMain(['add', '--file', path, '-q'], env)).code).toBe(0);
    const more = join(dir, 'more.csv');
    writeFileSync(
      more,
      `name,categoryId\n${Array.from({ length: 15 }, (_, i) => `Pet ${i},1`).join('\n')}\n`,
    );
    const before = posts();
    const result = await runMain(
      ['add', '--file', more, '--journal', `${path}.pets-journal`, '--dry-run', '--json'],
      env,
    );
    expect(result.code).toBe(0);
    expect(posts()).toBe(before);
    const plan = parseJson(result.stdout) as Record<string, unknown>;
    expect(plan.records).toEqual({
      total: 15,
      valid: 15,
      invalid: 0,
      toSend: 5,
      created: 10,
      unknown: 0,
      failedBefore: 0,
    });
    // The window is known from the run before: nothing more is asked.
    expect(plan.quota).toMatchObject({
      known: 'window',
      limit: 60,
      windowSeconds: 60,
      asked: false,
    });
    expect(plan.estimate).toMatchObject({ seconds: 0 });
    expect(plan.command).toBe(
      // As this run prints: with --json.
      `pets --profile staging add --file ${more} --journal ${path}.pets-journal --json`,
    );
    expect(result.stderr).toBe('');
  });
  it('reads records from stdin without a journal, as nothing will be sent', async () => {
    const result = await runMain(['add', '--file', '-', '--dry-run', '--json'], env, {
      stdin: '{"name":"A","categoryId":1}\n{"name":""}\n{"name":"C","categoryId":3}\n',
    });
    expect(result.code).toBe(1);
    expect(posts()).toBe(0);
    const plan = parseJson(result.stdout) as {
      records: Record<string, number>;
      invalid: Array<{ line: number }>;
    };
    expect(plan.records).toMatchObject({ total: 3, valid: 2, invalid: 1, toSend: 2 });
    expect(plan.invalid.map((record) => record.line)).toEqual([2]);
  });

  it('reads --format in any case, and refuses one it does not know (exit 2), naming each', async () => {
    const path = csv('pets.txt', 2);
    const upper = await runMain(
      ['add', '--file', path, '--format', 'CSV', '--dry-run', '--json'],
      env,
    );
    expect(parseJson(upper.stdout)).toMatchObject({ format: 'csv', formatFrom: 'flag' });
    const yaml = await runMain(['add', '--file', path, '--format', 'yaml', '--dry-run'], env);
    expect(yaml.code).toBe(2);
    expect(yaml.stderr).toMatch(/--format.*ndjson, json, csv/);
    // The first dry run asked the quota once; the refused one sent nothing.
    expect(sandbox.requestLog).toHaveLength(1);
  });
});
