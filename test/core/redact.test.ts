import { describe, expect, it } from 'vitest';
import { redact, Secrets } from '../../src/core/redact.js';
import {
  GATEWAY_ENCODINGS,
  keyBearingPart,
  leaksPart,
  quotedPrintable,
} from '../helpers/echo-encodings.js';

const KEY = 'sk_live/a<b>&"c"\\d e';
const CANARY = 'sk_live_CANARY_5f2e9a7c41b8d306';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const perByte = (text: string, format: (byte: number) => string) =>
  [...bytes(text)].map(format).join('');
const perChar = (text: string, format: (code: number) => string) =>
  [...text].map((ch) => format(ch.codePointAt(0)!)).join('');

/** Each encoding a gateway is known to echo, of `text` (a key, or "Bearer <key>"). */
function encodings(text: string): Array<[string, string]> {
  return [
    ['as it is', text],
    ['in upper case', text.toUpperCase()],
    ['JSON-escaped', JSON.stringify(text).slice(1, -1)],
    ['with \\/', JSON.stringify(text).slice(1, -1).replace(/\//g, '\\/')],
    ['every character \\uXXXX', perChar(text, (c) => `\\u${c.toString(16).padStart(4, '0')}`)],
    ['escaped twice', JSON.stringify(JSON.stringify(text).slice(1, -1)).slice(1, -1)],
    ['percent-encoded', encodeURIComponent(text)],
    ['percent-encoded in lower case', encodeURIComponent(text).toLowerCase()],
    ['percent-encoded twice', encodeURIComponent(encodeURIComponent(text))],
    ['form-encoded, + for a space', new URLSearchParams({ k: text }).toString().slice(2)],
    ['hex', bytes(text).toString('hex')],
    ['HEX', bytes(text).toString('hex').toUpperCase()],
    ['\\xNN', perByte(text, (b) => `\\x${b.toString(16).padStart(2, '0')}`)],
    ['\\xNN in upper case', perByte(text, (b) => `\\x${b.toString(16).toUpperCase()}`)],
    ['HTML decimal entities', perChar(text, (c) => `&#${c};`)],
    ['HTML hex entities', perChar(text, (c) => `&#x${c.toString(16)};`)],
    [
      'HTML hex entities in upper case',
      perChar(text, (c) => `&#X${c.toString(16).toUpperCase()};`),
    ],
    [
      'HTML-escaped, as html.escape does',
      text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;'),
    ],
    ['HTML entities escaped again', perChar(text, (c) => `&amp;#${c};`)],
    ...[0, 1, 2].flatMap((pad): Array<[string, string]> => {
      // What the secret's bytes become at each alignment: the padding's own characters and
      // the last, partial one are taken off (they are not the secret's alone).
      const encoded = Buffer.concat([Buffer.alloc(pad, 'x'), bytes(text), bytes('!')]);
      return [
        [`base64 after ${pad} bytes`, encoded.toString('base64')],
        [`base64url after ${pad} bytes`, encoded.toString('base64url')],
      ];
    }),
    ['with zero-width spaces between', [...text].join('\u200b')],
    ['with zero-width joiners, escaped', [...text].join('\\u200d')],
    ['with ESC[0m between', [...text].join('\x1b[0m')],
    ['with ESC[0m between, as JSON writes it', [...text].join('\\u001b[0m')],
    ['in base64 with zero-width spaces', [...bytes(text).toString('base64')].join('\u200b')],
    ['in hex with colour codes', [...bytes(text).toString('hex')].join('\x1b[1;31m')],
  ];
}

describe('redact', () => {
  for (const secret of [KEY, CANARY]) {
    for (const text of [secret, `Bearer ${secret}`]) {
      it.each(encodings(text))(`replaces ${JSON.stringify(text)} written %s`, (_how, written) => {
        const redacted = redact(`before ${written} after`, [secret]);
        expect(redacted.startsWith('before ')).toBe(true);
        expect(redacted.endsWith(' after')).toBe(true);
        expect(redacted).toContain('***');
        // Nothing of the secret is left in any encoding (at most a character's few bits).
        for (const [, form] of encodings(secret)) expect(redacted).not.toContain(form);
        const core = bytes(secret).toString('base64').slice(2, -2);
        expect(redacted).not.toContain(core);
      });
    }
  }

  it('replaces the whole of an echoed Authorization header in base64 and hex', () => {
    for (const encoding of ['base64', 'base64url', 'hex'] as const) {
      const header = bytes(`Bearer ${CANARY}`).toString(encoding);
      expect(redact(`x-echo: ${header}`, [CANARY])).toMatch(/^x-echo: \*\*\*.?.?$/);
    }
  });

  it('replaces base64 that follows backslashes, and the escape before it, whole', () => {
    // A JSON-escaped backslash (`C:\\`), a literal one, and an escape's letter (`\n`, `\b`)
    // before the run: --json writes a message's backslash as `\\`.
    for (const key of [CANARY, 'live_CANARY_5f2e9a7c41b8d306']) {
      const base64 = bytes(key).toString('base64');
      for (const before of ['\\', '\\\\', '\\\\\\', '\\n', '\\b', '\\\\n']) {
        expect(redact(`"key: C:${before}${base64}"`, [key])).toBe('"key: C:***"');
      }
    }
  });

  it('keeps the text around the secret, and the colour codes outside it', () => {
    expect(redact(`\x1b[31mred\x1b[0m ${[...CANARY].join('\u200b')} end`, [CANARY])).toBe(
      '\x1b[31mred\x1b[0m *** end',
    );
  });

  it('leaves text that only resembles the key, and keys too short to tell apart', () => {
    // 11 characters of the key's start are what services show to name a key; 12 are a leak.
    expect(redact('sk_live/a<b and sk_live_CAN…', [KEY, CANARY])).toBe(
      'sk_live/a<b and sk_live_CAN…',
    );
    expect(redact('%2f and \\u002f', ['/'])).toBe('%2f and \\u002f');
    expect(redact('an abc in a sentence', ['abc'])).toBe('an abc in a sentence');
    const ordinary =
      'id\tname\tcategory\n1\tRex &amp; Co\t3\n2\t\\u200bBella%20\t\x1b[1mdog\x1b[0m\n';
    expect(redact(ordinary, [KEY, CANARY])).toBe(ordinary);
  });

  it('redacts every registered secret', () => {
    const secrets = new Secrets().add(CANARY).add(undefined).add('proxy-user:hunter2-long');
    const proxyAuth = bytes('proxy-user:hunter2-long').toString('base64');
    expect(secrets.redact(`${CANARY} Basic ${proxyAuth} ${KEY}`)).toBe(`*** Basic *** ${KEY}`);
    expect([...secrets]).toEqual([CANARY, 'proxy-user:hunter2-long']);
    expect(new Secrets().redact('text')).toBe('text');
  });

  it('takes all of a key whose characters have several forms, whole or cut short', () => {
    const php = (text: string) => JSON.stringify(text).slice(1, -1).replace(/\//g, '\\/');
    expect(redact(`"${php(KEY)}"`, [KEY])).toBe('"***"');
    for (const cut of [12, 16, 17, 19]) {
      expect(redact(`"${php(KEY.slice(0, cut))}…"`, [KEY])).toBe('"***…"');
    }
  });

  it('replaces an echo cut short after 12 characters of the key or more, in any form', () => {
    for (const cut of [12, 13, 20, 30]) {
      const start = CANARY.slice(0, cut);
      expect(redact(`key ${start}… is invalid`, [CANARY])).toBe('key ***… is invalid');
      expect(redact(`key ${encodeURIComponent(start.toUpperCase())}…`, [CANARY])).toBe('key ***…');
    }
    // The base64 of the key, cut after 15 characters, holds 11 of the key; after 16, 12.
    const base64 = bytes(CANARY).toString('base64');
    expect(redact(`"${base64.slice(0, 15)}"`, [CANARY])).toBe(`"${base64.slice(0, 15)}"`);
    expect(redact(`"${base64.slice(0, 16)}"`, [CANARY])).toBe('"***"');
  });
});

describe('redact, in the encodings gateways echo whole', () => {
  for (const secret of [KEY, CANARY]) {
    for (const text of [secret, `Bearer ${secret}`]) {
      it.each(GATEWAY_ENCODINGS)(`replaces ${JSON.stringify(text)} as %s`, (_how, encode) => {
        const written = encode(text);
        const part = keyBearingPart(encode, text, secret);
        expect(leaksPart(written, part, secret.length)).toBe(true);
        const redacted = redact(`before ${written} after`, [secret]);
        expect(redacted.startsWith('before ')).toBe(true);
        expect(redacted.endsWith(' after')).toBe(true);
        expect(redacted).toContain('***');
        expect({ redacted, leaks: leaksPart(redacted, part, secret.length) }).toEqual({
          redacted,
          leaks: false,
        });
      });
    }
  }

  it('covers the proxy credentials and the rate store password alike', () => {
    const proxy = 'proxy-user:hunter2-long-pw';
    const store = 'redis-pass-0123456789';
    const secrets = new Secrets().add(CANARY).add(proxy).add('hunter2-long-pw').add(store);
    for (const [how, encode] of GATEWAY_ENCODINGS) {
      for (const [secret, text] of [
        [proxy, `Basic ${proxy}`],
        [store, `AUTH default ${store}`],
      ] as const) {
        const part = keyBearingPart(encode, text, secret);
        const redacted = secrets.redact(`echo ${encode(text, secret)} end`);
        expect({ how, secret, leaks: leaksPart(redacted, part, secret.length) }).toEqual({
          how,
          secret,
          leaks: false,
        });
      }
    }
  });

  it('takes a key out of a megabyte of encoded bytes, and leaves a list of a million', () => {
    const around = (text: string) => `${'x'.repeat(400_000)}${text}${'y'.repeat(400_000)}`;
    const blob = bytes(around(`Bearer ${CANARY}`)).toString('base64');
    const redacted = redact(`"${blob.replace(/.{76}/g, '$&\\r\\n')}"`, [CANARY]);
    expect(redacted).toBe('"***"');
    const list = `[${Array.from({ length: 1_000_000 }, (_, i) => i % 200).join(',')}]`;
    expect(redact(list, [CANARY])).toBe(list);
  });

  // A hostile server's echo of 200,000 backslashes took 2 minutes when each was a new start.
  it('reads a long run of backslashes once, not once from each', { timeout: 20_000 }, () => {
    const run = `a${'\\'.repeat(200_000)}`;
    for (const text of [run, JSON.stringify({ message: run }), `${run}x${CANARY.slice(1)}`]) {
      expect(redact(text, [CANARY])).toBe(text);
    }
    expect(redact(`${run}${CANARY}`, [CANARY])).toBe(`${run}***`);
    expect(redact(`${run}u0073${CANARY.slice(1)}`, [CANARY])).toBe('a***');
    expect(redact(`a\\\\\\u0073${CANARY.slice(1)}`, [CANARY])).toBe('a***');
  });

  it('leaves ordinary data that only looks encoded', () => {
    const other = 'sk_live_OTHER_0123456789abcdef';
    const ordinary = [
      '[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]',
      '[{"id":9007199254740993,"tags":[101,102,103,104,105,106,107,108,109,110]}]',
      'sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',
      'de:ad:be:ef:00:11:22:33:44:55 0x01,0x02,0x03,0x04,0x05,0x06,0x07,0x08,0x09',
      '550e8400-e29b-41d4-a716-446655440000',
      bytes(`Bearer ${other}`).toString('base64'),
      Buffer.from(`Bearer ${other}`, 'utf16le').toString('base64'),
      bytes(bytes(`Bearer ${other}`).toString('base64')).toString('base64'),
      `${'QUJD'.repeat(19)}\r\n${'REVG'.repeat(19)}\r\n${'R0hJ'.repeat(5)}==`,
      bytes(`Bearer ${other}`).toString('base64').replace(/.{20}/g, '$&\r\n'),
      JSON.stringify([...bytes(`Bearer ${other}`)], null, 2),
      JSON.stringify({ ids: [...Array(30).keys()].map((i) => 100 + i) }, null, 2),
      quotedPrintable(`a name with = signs and ${'long '.repeat(30)}text`),
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'Rex the third\tavailable\tunavailable\tinternationalization\r\n',
    ].join('\n');
    expect(redact(ordinary, [KEY, CANARY, 'proxy-user:hunter2-long-pw'])).toBe(ordinary);
  });
});

describe('a password too short to look for alone', () => {
  it('is taken out of every URL that holds it, as itself or percent-encoded', () => {
    const secrets = new Secrets().add('pw').add('a/b');
    expect(secrets.redact('redis://:pw@10.0.0.2:6379/1 and rediss://ci:PW@h:1')).toBe(
      'redis://:***@10.0.0.2:6379/1 and rediss://ci:***@h:1',
    );
    expect(secrets.redact('"redis://user:a%2Fb@h:6379"')).toBe('"redis://user:***@h:6379"');
    // Alone, two letters are too common to take out: "pw" stays in other words.
    expect(secrets.redact('a pw reset; redis://h:6379')).toBe('a pw reset; redis://h:6379');
  });

  it('is one of the secrets redact takes, in the forms it knows for any character', () => {
    // As the client and the error report redact, with the secrets as a list.
    expect(redact('{"url":"redis:\\/\\/:p&#119;@h:6379"}', ['pw'])).toBe(
      '{"url":"redis:\\/\\/:***@h:6379"}',
    );
    expect(redact('proxy http://u:%70%77@h:3128 and pw', ['pw', CANARY])).toBe(
      'proxy http://u:***@h:3128 and pw',
    );
  });

  it('is looked for everywhere once it is long enough', () => {
    const secrets = new Secrets().add('long-enough-pw');
    expect(secrets.redact('said long-enough-pw')).toBe('said ***');
  });
});
