import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AUTH_STATUS,
  BATCH_LINE,
  DRY_RUN,
  ERROR,
  LINE_ERROR,
  PET,
  PLAN,
  PLAN_QUOTA,
  PLAN_RECORDS,
  PROFILE,
  QUOTA,
  SANDBOX,
  STDERR_KINDS,
  STDOUT,
  type Shape,
} from '../../../src/cmd/help/json-topic.js';
import { JSON_COMMANDS } from '../../../src/cmd/shared/json-output.js';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { apiEnv } from '../../helpers/api-env.js';
import { tempDir } from '../../helpers/config-dir.js';
import { runMain } from '../../helpers/run-main.js';
import { runSandboxCommand } from '../../helpers/sandbox-command.js';
import { testSandbox } from '../../helpers/sandbox.js';

// `pets help json` promises field names. Each documented shape is held against what the
// commands print: a documented field that disappears, or an undocumented one that appears,
// fails here.

let sandbox: RunningSandbox;
beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited', seed: 2 });
});

/** `value` has every field `shape` requires, and none it does not document. */
function expectShape(value: unknown, shape: Shape): void {
  expect(value, shape.name).toBeTypeOf('object');
  const keys = Object.keys(value as object).sort();
  const documented = shape.fields.map((field) => field.replace(/\?$/, ''));
  const required = shape.fields.filter((field) => !field.endsWith('?'));
  expect({ shape: shape.name, undocumented: keys.filter((k) => !documented.includes(k)) }).toEqual({
    shape: shape.name,
    undocumented: [],
  });
  expect({ shape: shape.name, missing: required.filter((f) => !keys.includes(f)) }).toEqual({
    shape: shape.name,
    missing: [],
  });
}

async function json(args: string[], env = apiEnv(sandbox)): Promise<unknown> {
  const result = await runMain([...args, '--json'], env);
  return JSON.parse(result.stdout);
}

function ndjson(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function stderrObjects(text: string): Array<Record<string, Record<string, unknown>>> {
  return ndjson(text) as Array<Record<string, Record<string, unknown>>>;
}

describe('pets help json', () => {
  it('documents every command with JSON output, and only those', async () => {
    expect(Object.keys(STDOUT).sort()).toEqual([...JSON_COMMANDS].sort());
    const page = (await runMain(['help', 'json'], {})).stdout;
    for (const command of JSON_COMMANDS) expect(page).toContain(`pets ${command} `);
    for (const shape of [
      PET,
      BATCH_LINE,
      LINE_ERROR,
      QUOTA,
      AUTH_STATUS,
      PROFILE,
      SANDBOX,
      DRY_RUN,
      PLAN,
      PLAN_RECORDS,
      PLAN_QUOTA,
    ]) {
      expect(page).toContain(`  ${shape.name}: {`);
    }
    for (const { kind, codes } of STDERR_KINDS) {
      expect(page).toContain(`{"${kind}":`);
      for (const code of Object.keys(codes)) {
        expect(page).toMatch(new RegExp(`^    ${code}( |\n {24}\\S)`, 'm'));
      }
    }
  });

  it('gives the shapes list, get and add print', async () => {
    const pets = (await json(['list'])) as unknown[];
    expect(pets.length).toBeGreaterThan(0);
    for (const pet of pets) expectShape(pet, PET);
    const id = String((pets[0] as { id: number }).id);
    expectShape(
      await json(['get', id], apiEnv(sandbox, { PETS_NO_DEPRECATION_WARNING: '1' })),
      PET,
    );
    expectShape(
      await json(['add', '--name', 'Shape', '--category-id', '1', '--status', 'sold']),
      PET,
    );
    const many = await runMain(['get', id, '999999', '--json'], apiEnv(sandbox));
    const [found, missing] = ndjson(many.stdout);
    expectShape(found, BATCH_LINE);
    expectShape(found!.pet, PET);
    expectShape(missing, BATCH_LINE);
    expectShape(missing!.error, LINE_ERROR);
  });

  it('gives the shapes add --file prints, with the batch summary', async () => {
    const file = join(tempDir('pets-help-json-'), 'pets.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n{"name":"","categoryId":1}\n');
    const result = await runMain(['add', '--file', file, '--yes', '--json'], apiEnv(sandbox));
    const [created, failed] = ndjson(result.stdout);
    expectShape(created, BATCH_LINE);
    expectShape(created!.pet, PET);
    expectShape(failed, BATCH_LINE);
    expectShape(failed!.error, LINE_ERROR);
    const again = await runMain(['add', '--file', file, '--yes', '--json'], apiEnv(sandbox));
    const [skipped] = ndjson(again.stdout);
    expect(skipped).toHaveProperty('skipped', true);
    expectShape(skipped, BATCH_LINE);
    const summary = stderrObjects(result.stderr).find((line) => 'summary' in line)!.summary!;
    expect(summary.code).toBe('batch');
    for (const field of STDERR_KINDS.find((k) => k.kind === 'summary')!.codes.batch!.fields) {
      expect(summary).toHaveProperty(field);
    }
  });

  it('gives the plan add --file --dry-run prints', async () => {
    const file = join(tempDir('pets-help-json-'), 'plan.ndjson');
    writeFileSync(file, '{"name":"A","categoryId":1}\n{"name":"","categoryId":1}\n');
    const result = await runMain(['add', '--file', file, '--dry-run', '--json'], apiEnv(sandbox));
    const plan = JSON.parse(result.stdout) as Record<string, unknown>;
    expectShape(plan, PLAN);
    expectShape(plan.records, PLAN_RECORDS);
    expectShape(plan.quota, PLAN_QUOTA);
  });

  it('gives the request add --dry-run shows for one pet', async () => {
    expectShape(await json(['add', '--name', 'A', '--category-id', '1', '--dry-run']), DRY_RUN);
  });

  it('gives the shapes quota, auth status and the profile commands print', async () => {
    expectShape(await json(['quota']), QUOTA);
    const status = await json(['auth', 'status']);
    expectShape(status, AUTH_STATUS);
    expectShape((status as { quota: unknown }).quota, QUOTA);
    const profiles = (await json(['profile', 'list'])) as unknown[];
    for (const profile of profiles) expectShape(profile, PROFILE);
    expectShape(await json(['profile', 'show', 'staging']), PROFILE);
  });

  it('gives the shape pets sandbox prints', async () => {
    const { code, out } = await runSandboxCommand(['--port', '0', '--json'], {
      env: apiEnv(sandbox),
    });
    expect(code).toBe(0);
    expectShape(JSON.parse(out), SANDBOX);
  });

  it('gives the error shape, and the fields each stderr code documents', async () => {
    const missing = await runMain(['get', '999999', '--json'], apiEnv(sandbox));
    const lines = stderrObjects(missing.stderr);
    expectShape(lines.at(-1)!.error, ERROR);
    const deprecated = lines.find((line) => line.warning?.code === 'deprecated')!.warning!;
    const protectedWrite = stderrObjects(
      (await runMain(['add', '--name', 'P', '--category-id', '1', '--json'], apiEnv(sandbox)))
        .stderr,
    ).find((line) => line.warning?.code === 'protected_profile')!.warning!;
    const hint = stderrObjects(
      (
        await runMain(['list', '--json'], apiEnv(sandbox), {
          stdoutIsTTY: true,
          stderrIsTTY: true,
        })
      ).stderr,
    ).find((line) => line.hint?.code === 'environment')!.hint!;
    const seen: Record<string, Record<string, unknown>> = {
      deprecated,
      protected_profile: protectedWrite,
      environment: hint,
    };
    for (const { codes } of STDERR_KINDS) {
      for (const [code, { fields }] of Object.entries(codes)) {
        if (!(code in seen)) continue;
        for (const field of ['code', 'message', ...fields])
          expect(seen[code]).toHaveProperty(field);
      }
    }
  });
});
