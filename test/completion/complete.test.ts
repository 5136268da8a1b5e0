import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cmd/root.js';
import { createDeps } from '../../src/runtime/wiring.js';
import { complete, formatCandidates } from '../../src/completion/complete.js';
import { HELP_TOPICS } from '../../src/cmd/help/help.js';
import { captureIo } from '../helpers/io.js';

const program = buildProgram(
  createDeps({ signal: new AbortController().signal, io: captureIo(), env: {} }),
  {},
);
const PROFILES = ['production', 'staging', 'sandbox'];

/** The words after `pets` as a shell passes them: a trailing space starts an empty word. */
function words(line: string): string[] {
  return line.split(' ');
}

function values(line: string, profiles: readonly string[] = PROFILES): string[] {
  return complete(program, words(line), { profiles: () => profiles, helpTopics: HELP_TOPICS }).map(
    (c) => c.value,
  );
}

const sorted = (list: readonly string[]) => [...list].sort();

describe('commands and subcommands', () => {
  it('offers every visible command, and not the hidden __complete', () => {
    const offered = values('');
    expect(offered).toEqual(
      expect.arrayContaining([
        'list',
        'add',
        'get',
        'quota',
        'api',
        'profile',
        'auth',
        'sandbox',
        'completion',
        'help',
      ]),
    );
    expect(offered).not.toContain('__complete');
    expect(offered.every((value) => !value.startsWith('-'))).toBe(true);
  });

  it.each([
    ['li', ['list']],
    ['pro', ['profile']],
    ['comp', ['completion']],
    ['__c', []],
    ['zzz', []],
    ['profile u', ['use']],
    ['profile s', ['set', 'show']],
    ['auth lo', ['login', 'logout']],
    ['auth s', ['status']],
    ['--profile staging li', ['list']],
    ['--timeout 5 --json profile r', ['remove']],
    ['help pro', ['profile']],
    ['help profile u', ['use']],
    ['help auth lo', ['login', 'logout']],
    ['help list ', []],
    ['help nope ', []],
  ])('%j → %j', (line, expected) => {
    expect(sorted(values(line))).toEqual(sorted(expected));
  });

  it('offers the commands after help, but not help itself nor hidden ones', () => {
    const offered = values('help ');
    expect(offered).toEqual(expect.arrayContaining(['list', 'profile', 'completion', 'sandbox']));
    expect(offered).not.toContain('help');
    expect(offered).not.toContain('__complete');
    expect(values('help profile ')).toEqual(
      expect.arrayContaining(['list', 'show', 'use', 'set', 'remove']),
    );
  });

  it('offers the subcommands of profile and auth', () => {
    expect(values('profile ')).toEqual(
      expect.arrayContaining(['list', 'show', 'use', 'set', 'remove']),
    );
    expect(values('auth ')).toEqual(expect.arrayContaining(['login', 'logout', 'status']));
    expect(values('profile ')).not.toContain('login');
  });

  it('gives commands with their descriptions', () => {
    const [list] = complete(program, ['li'], { profiles: () => [], helpTopics: HELP_TOPICS });
    expect(list).toEqual({ value: 'list', description: 'list pets, optionally by status' });
  });

  it.each(['nope ', 'nope --st', 'nope --status ', 'profile nope ', 'profile nope --'])(
    'completes nothing after an unknown command: %j',
    (line) => {
      expect(values(line)).toEqual([]);
    },
  );
});

describe('flags', () => {
  const GLOBAL = [
    '--profile',
    '--json',
    '--no-color',
    '--quiet',
    '--timeout',
    '--max-wait',
    '--debug',
    '--help',
  ];

  it('offers the flags of the command and the global ones', () => {
    const offered = values('list --');
    expect(offered).toEqual(expect.arrayContaining(['--limit', '--status', ...GLOBAL]));
    expect(offered).not.toContain('--name');
    expect(offered).not.toContain('--plan');
  });

  it('offers only the global flags that act for the command: the others are refused there', () => {
    const offered = values('profile list --');
    expect(offered).toEqual(expect.arrayContaining(['--profile', '--json', '--jq', '--quiet']));
    for (const refused of ['--timeout', '--max-wait', '--debug', '--no-input']) {
      expect(offered).not.toContain(refused);
    }
    expect(values('completion --')).not.toContain('--json');
  });

  it('offers the global flags before any command', () => {
    expect(values('--')).toEqual(expect.arrayContaining([...GLOBAL, '--version']));
    expect(values('--')).not.toContain('--status');
  });

  it('offers short flags after a single dash', () => {
    expect(values('list -')).toEqual(expect.arrayContaining(['-q', '-h', '--quiet']));
    expect(values('list --')).not.toContain('-q');
  });

  it.each([
    ['list --st', ['--status']],
    ['list --l', ['--limit']],
    ['add --f', ['--file', '--format']],
    ['add --re', ['--retry-unknown']],
    ['sandbox --no-s', ['--no-save-profile']],
    ['profile set x --base', ['--base-url']],
    ['auth login --w', ['--with-key']],
    ['--ma', ['--max-wait']],
    ['list --de', ['--debug']],
    ['list --zzz', []],
  ])('%j → %j', (line, expected) => {
    expect(sorted(values(line))).toEqual(sorted(expected));
  });

  it('does not offer a flag already given, nor the other half of a negatable pair', () => {
    const offered = values('list --status sold --json --');
    expect(offered).not.toContain('--status');
    expect(offered).not.toContain('--json');
    expect(offered).toContain('--limit');
    const sandbox = values('sandbox --no-save-profile --');
    expect(sandbox).not.toContain('--save-profile');
    expect(sandbox).not.toContain('--no-save-profile');
    expect(sandbox).toContain('--plan');
  });

  it('offers the flags when a command takes no (more) arguments', () => {
    expect(values('list ')).toEqual(expect.arrayContaining(['--limit', '--status', '--json']));
    expect(values('profile use staging ')).toContain('--help');
  });

  it('offers nothing where free text or more ids may follow', () => {
    expect(values('get ')).toEqual([]);
    expect(values('get 42 ')).toEqual([]);
    expect(values('add --name ')).toEqual([]);
    expect(values('--max-wait ')).toEqual([]);
  });

  it('offers no flags after --', () => {
    expect(values('list -- --st')).toEqual([]);
    expect(values('list -- ')).toEqual([]);
  });

  it('gives flags with their descriptions', () => {
    const [status] = complete(program, ['list', '--st'], {
      profiles: () => [],
      helpTopics: HELP_TOPICS,
    });
    expect(status?.description).toMatch(/\(available, pending, sold\)/);
  });
});

describe('values', () => {
  it.each([
    ['list --status ', ['available', 'pending', 'sold']],
    ['list --status a', ['available']],
    ['list --limit 5 --status p', ['pending']],
    ['add --name Rex --status s', ['sold']],
    ['list --status=p', ['--status=pending']],
    ['list --status=', ['--status=available', '--status=pending', '--status=sold']],
    ['sandbox --plan ', ['free', 'pro', 'business', 'unlimited']],
    ['sandbox --port 0 --plan b', ['business']],
    ['sandbox --plan=u', ['--plan=unlimited']],
    ['add --format ', ['ndjson', 'json', 'csv']],
    ['add --file pets.txt --format n', ['ndjson']],
    ['completion ', ['bash', 'zsh', 'fish']],
    ['completion z', ['zsh']],
    ['completion bash ', expect.arrayContaining(['--help'])],
  ])('%j → %j', (line, expected) => {
    expect(values(line)).toEqual(expected);
  });

  it.each([
    ['add --file ', 'the file to read'],
    ['add --file p', 'a file name being typed'],
    ['add --journal ', 'the journal path'],
    ['sandbox --data ', 'the data file'],
    ['sandbox --data=', 'the data file after ='],
    ['--json=', 'a flag that takes no value'],
  ])('offers nothing for %j (%s), so the shell can complete file names', (line) => {
    expect(values(line)).toEqual([]);
  });

  it('completes a status even where the word looks like a flag', () => {
    expect(values('list --status -')).toEqual([]);
    expect(values('list --status --json --')).not.toContain('--status');
  });
});

describe('profile names', () => {
  it.each([
    ['--profile ', PROFILES],
    ['--profile s', ['staging', 'sandbox']],
    ['--profile=st', ['--profile=staging']],
    ['list --profile p', ['production']],
    ['list --json --profile ', PROFILES],
    ['profile use ', PROFILES],
    ['profile use s', ['staging', 'sandbox']],
    ['profile show ', PROFILES],
    ['profile remove sa', ['sandbox']],
    ['profile set st', ['staging']],
    ['--profile staging profile use p', ['production']],
  ])('%j → %j', (line, expected) => {
    expect(values(line)).toEqual(expected);
  });

  it('reads the profiles only when a profile name is completed', () => {
    let reads = 0;
    const sources = {
      profiles: () => {
        reads++;
        return PROFILES;
      },
      helpTopics: HELP_TOPICS,
    };
    complete(program, words('list --status '), sources);
    complete(program, words('li'), sources);
    complete(program, words('profile '), sources);
    expect(reads).toBe(0);
    complete(program, words('profile use '), sources);
    expect(reads).toBe(1);
  });

  it('offers none when there are none', () => {
    expect(values('--profile ', [])).toEqual([]);
    expect(values('profile use ', [])).toEqual([]);
  });
});

describe('formatCandidates', () => {
  it('prints one candidate a line, with a tab before the description', () => {
    expect(
      formatCandidates([{ value: 'list', description: 'list pets' }, { value: 'available' }]),
    ).toBe('list\tlist pets\navailable\n');
  });

  it('leaves out values that would break a line and flattens descriptions', () => {
    expect(
      formatCandidates([
        { value: 'two\nlines' },
        { value: 'tab\there' },
        { value: '' },
        { value: 'ok', description: 'first\nsecond\tthird' },
      ]),
    ).toBe('ok\tfirst second third\n');
  });
});

describe('pets api', () => {
  it('completes its flags and the methods of -X', () => {
    expect(values('api /x --')).toEqual(
      expect.arrayContaining([
        '--method',
        '--raw-field',
        '--field',
        '--header',
        '--input',
        '--include',
      ]),
    );
    expect(sorted(values('api /x -X '))).toEqual(
      sorted(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']),
    );
  });
});
