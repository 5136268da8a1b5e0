import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileNames } from '../../../src/completion/profile-names.js';
import { SHELLS } from '../../../src/completion/scripts.js';
import { tempConfigDir } from '../../helpers/config-dir.js';
import { runMain } from '../../helpers/run-main.js';

function configWith(profiles: Record<string, object>): string {
  const dir = tempConfigDir();
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ activeProfile: 'production', profiles }),
  );
  return dir;
}

describe('pets completion <shell>', () => {
  it.each([
    ['bash', 'complete -o default -F _pets_completion pets'],
    ['zsh', '#compdef pets'],
    ['fish', "complete -c pets -f -a '(__pets_complete)'"],
  ])('prints the %s script, which asks pets __complete', async (shell, marker) => {
    const result = await runMain(['completion', shell], { PETS_CONFIG_DIR: tempConfigDir() });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(marker);
    expect(result.stdout).toContain('command pets __complete -- ');
  });

  it('keeps every script short', async () => {
    for (const shell of SHELLS) {
      const { stdout } = await runMain(['completion', shell], {});
      expect(stdout.split('\n').length, shell).toBeLessThan(25);
    }
  });

  it('refuses another shell with a usage error naming the shells', async () => {
    const result = await runMain(['completion', 'powershell'], {});
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/bash, zsh, fish/);
  });

  it('leads its help with examples', async () => {
    const { stdout } = await runMain(['completion', '--help'], {});
    expect(stdout).toContain('$ source <(pets completion bash)');
    expect(stdout).toContain('$ pets completion zsh > "${fpath[1]}/_pets"');
    expect(stdout).toContain('$ pets completion fish > ~/.config/fish/completions/pets.fish');
  });

  it('is listed in pets --help, and __complete is not', async () => {
    const { stdout } = await runMain(['--help'], {});
    expect(stdout).toMatch(/^\s+completion /m);
    expect(stdout).not.toContain('__complete');
  });
});

describe('pets __complete', () => {
  const run = (words: string[], env: Record<string, string> = {}) =>
    runMain(['__complete', '--', ...words], { PETS_CONFIG_DIR: tempConfigDir(), ...env });

  it('prints candidates one a line, with descriptions after a tab', async () => {
    const result = await run(['li']);
    expect(result).toEqual({
      code: 0,
      stdout: 'list\tlist pets, optionally by status\n',
      stderr: '',
    });
  });

  it('prints values by the prefix typed', async () => {
    expect((await run(['list', '--status', 'a'])).stdout).toBe('available\n');
    expect((await run(['list', '--status', ''])).stdout).toBe('available\npending\nsold\n');
  });

  it('passes words that look like flags through, --help and -- included', async () => {
    expect((await run(['list', '--st'])).stdout).toMatch(/^--status\t/);
    expect((await run(['--he'])).stdout).toMatch(/^--help\t/);
    expect((await run(['--version', 'li'])).stdout).toMatch(/^list\t/);
    // After a `--` in the words, no flags: the inner `--` must reach the completer.
    expect(await run(['list', '--', '--st'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('prints nothing for a file argument or an unknown command', async () => {
    expect(await run(['add', '--file', ''])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await run(['nope', ''])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('completes the profile names of the config', async () => {
    const dir = configWith({ sandbox: { baseUrl: 'http://127.0.0.1:9/v1' } });
    const result = await runMain(['__complete', '--', '--profile', 's'], { PETS_CONFIG_DIR: dir });
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual(['sandbox', 'staging']);
    const used = await runMain(['__complete', '--', 'profile', 'use', ''], {
      PETS_CONFIG_DIR: dir,
    });
    expect(used.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'production',
      'sandbox',
      'staging',
    ]);
  });

  it('prints no profile and no error when the config is broken', async () => {
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{ not json');
    const result = await runMain(['__complete', '--', '--profile', ''], { PETS_CONFIG_DIR: dir });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('profileNames', () => {
  it('gives the built-in profiles without creating a missing config folder', () => {
    const dir = join(tempConfigDir(), 'not-yet');
    expect(profileNames({ PETS_CONFIG_DIR: dir })).toEqual(['production', 'staging']);
    expect(existsSync(dir)).toBe(false);
  });

  it('gives the saved profiles and the built-in ones', () => {
    const dir = configWith({ local: {}, sandbox: {} });
    expect(profileNames({ PETS_CONFIG_DIR: dir }).sort()).toEqual([
      'local',
      'production',
      'sandbox',
      'staging',
    ]);
  });

  it('gives nothing when the config does not hold pets settings', () => {
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '[1, 2]');
    expect(profileNames({ PETS_CONFIG_DIR: dir })).toEqual([]);
  });
});
