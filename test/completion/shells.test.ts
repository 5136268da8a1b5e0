import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/config-dir.js';

// The scripts in real shells, calling the built bin/pets.js (npm test builds first) through a
// `pets` on PATH, as users have it. A shell that is not installed is skipped.

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const hasShell = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
const hasBash = hasShell('bash');
const hasZsh = hasShell('zsh');
const hasFish = hasShell('fish');

let root: string;
let work: string;
let env: Record<string, string>;

beforeAll(() => {
  if (!existsSync(join(REPO, 'dist', 'runtime', 'main.js'))) {
    throw new Error('bin/pets.js needs a build first: npm run build');
  }
  root = tempDir('pets-completion-');
  const bin = join(root, 'bin');
  const config = join(root, 'config');
  work = join(root, 'work');
  for (const dir of [bin, config, work, join(root, 'home')]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(bin, 'pets'),
    `#!/bin/sh\nexec '${process.execPath}' '${join(REPO, 'bin', 'pets.js')}' "$@"\n`,
  );
  chmodSync(join(bin, 'pets'), 0o755);
  writeFileSync(
    join(config, 'config.json'),
    JSON.stringify({
      activeProfile: 'production',
      profiles: { sandbox: { baseUrl: 'http://127.0.0.1:9/v1' } },
    }),
  );
  writeFileSync(join(work, 'pets.csv'), 'name,categoryId\n');
  env = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: join(root, 'home'),
    PETS_CONFIG_DIR: config,
    TERM: 'dumb',
  };
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

function run(command: string, args: string[], extraEnv: Record<string, string> = {}) {
  const result = spawnSync(command, args, {
    cwd: work,
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
    timeout: 15_000,
  });
  if (result.error) throw result.error;
  return result;
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe.skipIf(!hasBash)('bash', () => {
  // What bash does before it calls the function: COMP_WORDS split at blanks and at the
  // characters of COMP_WORDBREAKS, "=" among them; COMP_CWORD the last word.
  const HARNESS = `
source <(pets completion bash) || exit 9
COMP_LINE=$1; COMP_POINT=\${#COMP_LINE}; shift
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
_pets_completion pets "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"`;

  function bashWords(line: string): string[] {
    return line.split(' ').flatMap((word) => word.split(/(=)/).filter((part) => part !== ''));
  }

  function complete(line: string): string[] {
    const words = bashWords(line);
    if (line.endsWith(' ')) words.push('');
    const result = run('bash', ['--norc', '--noprofile', '-c', HARNESS, 'bash', line, ...words]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return lines(result.stdout).sort();
  }

  it('registers the function with file names as the fallback', () => {
    const result = run('bash', [
      '--norc',
      '-c',
      'source <(pets completion bash) && complete -p pets',
    ]);
    expect(result.stdout.trim()).toBe('complete -o default -F _pets_completion pets');
  });

  it.each([
    ['pets li', ['list']],
    ['pets list --status a', ['available']],
    ['pets list --status ', ['available', 'pending', 'sold']],
    ['pets list --st', ['--status']],
    ['pets --profile s', ['sandbox', 'staging']],
    ['pets profile u', ['use']],
    ['pets profile use p', ['production']],
    ['pets sandbox --plan b', ['business']],
    ['pets completion ', ['bash', 'fish', 'zsh']],
    ['pets list --status=p', ['pending']],
    ['pets list --status=', ['=available', '=pending', '=sold']],
    ['pets add --file ', []],
    ['pets nope ', []],
  ])('%j → %j', (line, expected) => {
    expect(complete(line)).toEqual(expected);
  });

  it('offers every command after "pets "', () => {
    expect(complete('pets ')).toEqual(
      expect.arrayContaining(['add', 'auth', 'completion', 'get', 'list', 'profile', 'sandbox']),
    );
    expect(complete('pets ')).not.toContain('__complete');
  });
});

/**
 * Real completion through a line editor: `shell` runs interactively in a pseudo-terminal of
 * zsh's zpty module. After `setup`, Ctrl-T is bound to write the line to a file and clear
 * it; each of `typed` is sent followed by `keys` (Tab, then Ctrl-T), and the lines come back.
 */
function lineEditor(
  shell: string,
  setup: (out: string) => string,
  keys: string,
  typed: string[],
): string[] {
  const out = join(root, `line-${Math.random().toString(36).slice(2)}.out`);
  const script = `
zmodload zsh/zpty || exit 9
out=$1; shell=$2; setup=$3; keys=$4; shift 4
zpty e "$shell"
zpty -w e "PS1='> '; $setup; echo RE''ADY"
zpty -r -m e o '*READY*' || exit 8
n=0
for line in "$@"; do
  zpty -w -n e "$line$keys"
  (( n++ ))
  for i in {1..200}; do [[ -f $out && $(wc -l < $out) -ge $n ]] && break; sleep 0.05; done
done
zpty -d e
cat $out`;
  const result = run('zsh', ['-f', '-c', script, 'zsh', out, shell, setup(out), keys, ...typed]);
  expect(result.status).toBe(0);
  return lines(result.stdout).map((line) => line.replace(/^<<(.*)>>$/, '$1'));
}

describe.skipIf(!hasBash || !hasZsh)('bash, interactive', () => {
  it('completes the line in readline, file names included', () => {
    const setup = (out: string) =>
      `source <(pets completion bash); bind -x '"\\C-t": printf "<<%s>>\\n" "$READLINE_LINE" >> ${out}; READLINE_LINE='`;
    const typed = [
      'pets li',
      'pets list --status a',
      'pets list --status=p',
      'pets --profile sa',
      'pets add --file pe',
      'pets lx',
    ];
    expect(lineEditor('bash --norc --noprofile -i', setup, '\t\x14', typed)).toEqual([
      'pets list ',
      'pets list --status available ',
      'pets list --status=pending ',
      'pets --profile sandbox ',
      'pets add --file pets.csv ',
      'pets lx',
    ]);
  });
});

describe.skipIf(!hasZsh)('zsh', () => {
  // A widget that runs complete-word, then writes the line.
  const typeTab = (setup: string, typed: string[]) =>
    lineEditor(
      'zsh -f -i',
      (out) =>
        `${setup}; t() { zle complete-word; print -r -- "<<$BUFFER>>" >> ${out}; BUFFER= }; zle -N t; bindkey '^T' t`,
      '\x14',
      typed,
    );

  const SOURCED = 'autoload -U compinit; compinit -u -D; source <(pets completion zsh)';

  it('completes the line in the line editor', () => {
    const typed = [
      'pets li',
      'pets list --status a',
      'pets list --status=p',
      'pets profile u',
      'pets --profile sa',
      'pets sandbox --plan u',
      'pets add --name "Rex Jr" --st',
      'pets add --file pets.c',
      'pets lx',
    ];
    expect(typeTab(SOURCED, typed)).toEqual([
      'pets list ',
      'pets list --status available ',
      'pets list --status=pending ',
      'pets profile use ',
      'pets --profile sandbox ',
      'pets sandbox --plan unlimited ',
      'pets add --name "Rex Jr" --status ',
      'pets add --file pets.csv ',
      'pets lx',
    ]);
  });

  it('works installed in $fpath, as the help says', () => {
    const functions = join(root, 'zfunc');
    mkdirSync(functions, { recursive: true });
    const script = run('pets', ['completion', 'zsh']);
    writeFileSync(join(functions, '_pets'), script.stdout);
    const setup = `fpath=(${functions} $fpath); autoload -U compinit; compinit -u -D`;
    expect(typeTab(setup, ['pets completion z', 'pets auth st'])).toEqual([
      'pets completion zsh ',
      'pets auth status ',
    ]);
  });

  it('hands every candidate with its description to _describe, and files to _files', () => {
    // The function itself, with _describe and _files replaced by ones that print.
    const harness = `
autoload -U compinit; compinit -u -D
source <(pets completion zsh) || exit 9
_describe() { print -rl -- "\${(@P)argv[-1]}" }
_files() { print -r -- '<files>' }
words=("$@"); CURRENT=$#words
_pets`;
    const complete = (...words: string[]) =>
      lines(run('zsh', ['-f', '-c', harness, 'zsh', 'pets', ...words]).stdout).sort();
    expect(complete('--profile', 's')).toEqual(['sandbox', 'staging']);
    expect(complete('list', '--st')).toEqual([
      '--status:only pets with this status (available, pending, sold)',
    ]);
    expect(complete('li')).toEqual(['list:list pets, optionally by status']);
    expect(complete('add', '--file', '')).toEqual(['<files>']);
  });
});

describe.skipIf(!hasFish)('fish', () => {
  function complete(line: string): string[] {
    const result = run(
      'fish',
      ['--no-config', '-c', 'pets completion fish | source; complete -C $LINE'],
      { LINE: line },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return lines(result.stdout);
  }

  it.each([
    ['pets li', ['list\tlist pets, optionally by status']],
    ['pets list --status a', ['available']],
    ['pets list --status=p', ['--status=pending']],
    ['pets --profile s', ['sandbox', 'staging']],
    ['pets profile u', ['use\tmake a profile the active one']],
    ['pets sandbox --plan ', ['business', 'free', 'pro', 'unlimited']],
    ['pets add --format n', ['ndjson']],
    ['pets nope ', ['pets.csv']],
  ])('%j → %j', (line, expected) => {
    expect(complete(line)).toEqual(expected);
  });

  it('offers file names where pets has no candidates', () => {
    expect(complete('pets add --file pe')).toEqual(['pets.csv']);
    expect(complete('pets sandbox --data ')).toContain('pets.csv');
  });
});
