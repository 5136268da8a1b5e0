// The terminal door on buffers: what it decides from the streams and the global options, and
// that what it prints is redacted and goes where it should.
import { describe, expect, it } from 'vitest';
import { testTerminal } from '../helpers/test-terminal.js';

describe('Terminal', () => {
  it('says why no question may be asked, the user’s reason first', () => {
    const tty = { stdinIsTTY: true, stderrIsTTY: true };
    expect(testTerminal({ io: tty }).terminal.whyNoPrompt).toBeUndefined();
    expect(testTerminal({ io: tty }).terminal.canPrompt).toBe(true);
    const why = (settings: Parameters<typeof testTerminal>[0]) =>
      testTerminal(settings).terminal.whyNoPrompt;
    expect(why({ io: tty, options: { input: false }, env: { CI: '1' } })).toBe(
      '--no-input was given',
    );
    expect(why({ io: tty, options: { json: true } })).toBe('--json was given');
    expect(why({ io: tty, options: { json: true, jq: '.' } })).toBe('--jq was given');
    expect(why({ io: tty, env: { CI: 'true' } })).toBe('CI is set');
    expect(why({ io: { stderrIsTTY: true } })).toBe('stdin is not a terminal');
    expect(why({ io: { stdinIsTTY: true } })).toBe('stderr is not a terminal');
  });

  it('chooses the output mode, the table width, progress and hints from the streams', () => {
    const person = testTerminal({
      io: { stdoutIsTTY: true, stderrIsTTY: true, stdoutColumns: 72 },
    }).terminal;
    expect([person.mode, person.tableWidth, person.showsProgress, person.showsHints]).toEqual([
      'table',
      72,
      true,
      true,
    ]);
    const pipe = testTerminal({ io: { stdoutColumns: 72 } }).terminal;
    expect([pipe.mode, pipe.tableWidth, pipe.showsProgress, pipe.showsHints]).toEqual([
      'tsv',
      undefined,
      false,
      false,
    ]);
    const json = testTerminal({ io: { stderrIsTTY: true }, options: { json: true } }).terminal;
    expect([json.mode, json.showsProgress]).toEqual(['json', false]);
    const quiet = testTerminal({ io: { stderrIsTTY: true }, options: { quiet: true } }).terminal;
    expect(quiet.showsProgress).toBe(false);
  });

  it('writes notices as text, or as JSON lines under --json; --quiet silences them', async () => {
    const text = testTerminal();
    text.terminal.notice('Saved.');
    await text.terminal.warn('careful', { code: 'careful' });
    expect(text.err()).toBe('Saved.\nwarning: careful\n');
    expect(text.out()).toBe('');

    const json = testTerminal({ options: { json: true } });
    await json.terminal.warn('careful', { code: 'careful' });
    expect(JSON.parse(json.err())).toEqual({ warning: { code: 'careful', message: 'careful' } });

    const quiet = testTerminal({ options: { quiet: true } });
    quiet.terminal.notice('Saved.');
    await quiet.terminal.warn('careful');
    quiet.terminal.summary('created 3');
    expect(quiet.err()).toBe('');
  });

  it('redacts every secret from both streams', async () => {
    const { terminal, out, err } = testTerminal({ secrets: ['key_secret_123456'] });
    terminal.print('the key is key_secret_123456\n');
    terminal.notice('sent key_secret_123456');
    expect(out()).not.toContain('key_secret_123456');
    expect(err()).not.toContain('key_secret_123456');
    expect(out()).toContain('the key is ');
  });

  it('prints fields and rows in the run’s mode', async () => {
    const { terminal, out } = testTerminal();
    await terminal.printFields([
      ['profile', 'staging'],
      ['host', 'api.example.com'],
    ]);
    await terminal.printRows(
      [{ title: 'ID', text: (row: { id: string }) => row.id }],
      [{ id: '7' }],
    );
    expect(out()).toBe('profile\tstaging\nhost\tapi.example.com\nID\n7\n');
  });
});
