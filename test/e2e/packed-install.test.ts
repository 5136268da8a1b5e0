import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/config-dir.js';

// The package as npm users get it: `npm pack` of the built dist/ (npm test builds first;
// --ignore-scripts, so that its prepack does not rebuild dist/ under other tests), installed
// globally into an empty prefix, offline and with an empty npm cache, so that any dependency
// it asked for would fail the install. Then the installed `pets` runs a sandbox and talks to it.

const REPO = fileURLToPath(new URL('../../', import.meta.url));

let work: string;
let prefix: string;
let installed: string;
let installOutput: string;
let env: NodeJS.ProcessEnv;
let sandbox: ChildProcess | undefined;

function npm(args: string[], cwd: string) {
  const result = spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) {
    throw new Error(`npm ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  }
  return `${result.stdout}${result.stderr}`;
}

function pets(args: string[], input?: string) {
  return spawnSync(join(prefix, 'bin', 'pets'), args, {
    env,
    input,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

function folderSize(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.size;
  return readdirSync(path).reduce((sum, name) => sum + folderSize(join(path, name)), 0);
}

beforeAll(() => {
  work = tempDir('pets-packed-');
  prefix = join(work, 'prefix');
  env = {
    // The installed bin starts with `#!/usr/bin/env node`: this Node, not the machine's.
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
    HOME: work,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_update_notifier: 'false',
    PETS_CONFIG_DIR: join(work, 'config'),
    XDG_CACHE_HOME: join(work, 'cache'),
  };
  npm(['pack', '--ignore-scripts', '--pack-destination', work], REPO);
  const tarball = readdirSync(work).find((name) => /^pets-.*\.tgz$/.test(name));
  if (!tarball) throw new Error('npm pack made no tarball');
  installOutput = npm(
    ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', `./${tarball}`],
    work,
  );
  installed = join(prefix, 'lib', 'node_modules', 'pets');
}, 180_000);

afterAll(() => {
  sandbox?.kill('SIGINT');
});

describe('the packed tarball, installed with npm install -g into an empty prefix', () => {
  it('installs one package, offline, with no install-script warning', () => {
    expect(installOutput).toMatch(/added 1 package\b/);
    expect(installOutput).not.toMatch(/script/i);
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.scripts).not.toHaveProperty('prepare');
    expect(manifest.scripts).not.toHaveProperty('install');
    expect(manifest.scripts).not.toHaveProperty('postinstall');
  });

  it('ships the built files and nothing of the build or the tests', () => {
    const top = readdirSync(installed).sort();
    expect(top).toEqual(expect.arrayContaining(['bin', 'dist', 'package.json']));
    expect(top).not.toContain('src');
    expect(top).not.toContain('test');
    const dist = readdirSync(join(installed, 'dist'));
    expect(dist).toContain('runtime');
    expect(dist).not.toContain('sandbox'); // the benchmarks' copy; `pets sandbox` needs none
    expect(dist.filter((name) => name.startsWith('pets-'))).toEqual([]); // the executable
    // Under 3 MB unpacked (today about 2.1 MB, 0.9 of it jq.wasm and 0.2 the Redis client):
    // an executable or node_modules would be 100+.
    expect(folderSize(installed)).toBeLessThan(3 * 1024 * 1024);
  });

  it.skipIf(spawnSync('man', ['--version']).status !== 0)(
    'puts the man page where `man pets` finds it',
    () => {
      expect(existsSync(join(prefix, 'share', 'man', 'man1', 'pets.1'))).toBe(true);
      const shown = spawnSync('man', ['pets'], {
        encoding: 'utf8',
        env: { ...env, MANPATH: join(prefix, 'share', 'man'), MANPAGER: 'cat', MANWIDTH: '100' },
      });
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/pets - Command-line client for the Animal Store API v1/);
      expect(shown.stdout).toContain('pets list [options]');
    },
  );

  it('runs: --version, and a sandbox that the installed pets then lists and imports into', async () => {
    const version = pets(['--version']);
    expect(version.stdout).toBe(
      `${(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version}\n`,
    );
    const child = spawn(join(prefix, 'bin', 'pets'), ['sandbox', '--json', '--seed', '3'], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    sandbox = child;
    const firstLine = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
    });
    expect(JSON.parse(firstLine)).toMatchObject({ profile: 'sandbox' });

    const csv = join(work, 'pets.csv');
    writeFileSync(csv, 'name,categoryId,status\nRex,1,available\nMiso 🐱,2,pending\n');
    const added = pets(['--profile', 'sandbox', 'add', '--file', csv, '--json']);
    expect(added.status, added.stderr).toBe(0);
    const listed = pets(['--profile', 'sandbox', 'list', '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as Array<{ name: string }>).map((pet) => pet.name);
    expect(names).toEqual(expect.arrayContaining(['Rex', 'Miso 🐱']));

    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGINT');
    expect(await exit).toBe(0);
    sandbox = undefined;
  });
});
