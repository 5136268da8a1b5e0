import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { tempConfigDir, tempDir } from '../../helpers/config-dir.js';
import { noPerson, scriptedPrompter } from '../../helpers/prompter.js';
import { runMain } from '../../helpers/run-main.js';
import { testSandbox } from '../../helpers/sandbox.js';

let sandbox: RunningSandbox;
let env: Record<string, string>;
let records: string;

beforeEach(async () => {
  sandbox = await testSandbox({ plan: 'unlimited' });
  env = { PETS_CONFIG_DIR: tempConfigDir(), PETS_API_KEY: sandbox.key };
  for (const name of ['production', 'staging']) {
    await runMain(['profile', 'set', name, '--base-url', sandbox.baseUrl], env);
  }
  records = join(tempDir('pets-protected-'), 'two.ndjson');
  writeFileSync(records, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":1}\n');
});

const host = () => new URL(sandbox.baseUrl).host;

describe('protected profiles', () => {
  it('production is protected by default; a create there shows a one-line badge naming profile and host', async () => {
    const result = await runMain(['add', '--name', 'Rex', '--category-id', '1'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(` PROTECTED  production ${host()}\n`);
    const staging = await runMain(
      ['--profile', 'staging', 'add', '--name', 'Rex', '--category-id', '1'],
      env,
    );
    expect(staging.stderr).toBe('');
  });

  it('pets api shows the badge for a request that may change data, not for a read', async () => {
    const post = await runMain(
      ['api', '/pets', '-f', 'name=Rex', '-F', 'categoryId=1', '--yes'],
      env,
    );
    expect(post.code).toBe(0);
    expect(post.stderr).toBe(` PROTECTED  production ${host()}\n`);
    const read = await runMain(['api', '/store/orders'], env);
    expect(read.stderr).toBe('');
  });

  it('can be switched on and off per profile', async () => {
    await runMain(['profile', 'set', 'staging', '--protected'], env);
    await runMain(['profile', 'set', 'production', '--no-protected'], env);
    const shown = JSON.parse((await runMain(['profile', 'list', '--json'], env)).stdout);
    expect(shown.map((p: { name: string; protected: boolean }) => [p.name, p.protected])).toEqual([
      ['production', false],
      ['staging', true],
    ]);
    expect(
      (await runMain(['--profile', 'staging', 'add', '--name', 'A', '--category-id', '1'], env))
        .stderr,
    ).toContain('PROTECTED  staging');
    expect((await runMain(['add', '--name', 'A', '--category-id', '1'], env)).stderr).toBe('');
  });

  it('a batch with no one to ask needs --yes, and sends nothing without it', async () => {
    const before = sandbox.pets().length;
    const refused = await runMain(['add', '--file', records], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'profile "production" is protected: a batch into it needs --yes',
    );
    expect(sandbox.pets().length).toBe(before);
    const allowed = await runMain(['add', '--file', records, '--yes', '-q'], env);
    expect(allowed.code).toBe(0);
    expect(sandbox.pets().length).toBe(before + 2);
  });

  it('a batch on a terminal goes on once the profile name is typed, and not otherwise', async () => {
    const before = sandbox.pets().length;
    const person = scriptedPrompter(['prod']);
    const wrong = await runMain(['add', '--file', records], env, {
      stdinIsTTY: true,
      stderrIsTTY: true,
      prompts: person,
    });
    expect(wrong.code).toBe(2);
    expect(person.asked).toEqual([
      `Import into protected profile "production" (${host()})? Type its name to go on:`,
    ]);
    expect(wrong.stderr).toContain('that is not the profile name; nothing was sent');
    expect(sandbox.pets().length).toBe(before);
    const typed = await runMain(['add', '--file', records], env, {
      stdinIsTTY: true,
      stderrIsTTY: true,
      // Spaces around the name are no part of it.
      prompts: scriptedPrompter([' production ']),
    });
    expect(typed.code).toBe(0);
    expect(sandbox.pets().length).toBe(before + 2);
  });

  it('--no-input never prompts, even on a terminal', async () => {
    const batch = await runMain(['--no-input', 'add', '--file', records], env, {
      stdinIsTTY: true,
      stderrIsTTY: true,
      prompts: noPerson(),
    });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('--no-input was given');
    const login = await runMain(['auth', 'login', '--no-input'], env, { stdinIsTTY: true });
    expect(login.code).toBe(2);
    expect(login.stderr).toContain('--no-input');
  });
});
