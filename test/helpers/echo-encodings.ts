// The encodings in which servers and gateways are known to echo a request's Authorization
// header back, beyond the ones test/core/redact.test.ts and the canary test spell out char by
// char: whole-text encodings of bytes (MIME, PEM, UTF-16 and double base64, quoted-printable,
// byte lists) and echoes cut short. Each takes the header's value ("Bearer <key>") or a key.

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** `text` wrapped every `width` columns, as MIME (76), PEM (64) and other encoders wrap base64. */
function wrap(text: string, width: number, eol: string): string {
  return (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(eol);
}

/** Quoted-printable (RFC 2045): `=NN` for `=` and bytes outside ASCII, soft breaks at 76. */
export function quotedPrintable(text: string): string {
  let out = '';
  let column = 0;
  for (const byte of utf8(text)) {
    const piece =
      byte >= 32 && byte <= 126 && byte !== 61
        ? String.fromCharCode(byte)
        : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    if (column + piece.length > 75) {
      out += '=\r\n';
      column = 0;
    }
    out += piece;
    column += piece.length;
  }
  return out;
}

/**
 * A JSON body that holds `header` after `fill` bytes of note, so that a wrap of its base64 falls
 * inside the key: at byte 114 (76 columns) for 55, at byte 96 (64 columns) for 30.
 */
const body = (header: string, fill = 55) =>
  `{"note":"${'n'.repeat(fill)}","headers":{"authorization":"${header}"},"ok":true}`;

const keyOf = (text: string) => text.replace(/^Bearer /, '');

const hexBytes = (text: string, format: (hex: string) => string, sep: string) =>
  [...utf8(text)].map((byte) => format(byte.toString(16).padStart(2, '0'))).join(sep);

/** An encoding of `text` (the header's value, or text around a secret), which holds `key`. */
export type Encode = (text: string, key?: string) => string;

export const GATEWAY_ENCODINGS: Array<[string, Encode]> = [
  ['MIME base64, 76 columns, CRLF', (h) => wrap(utf8(body(h)).toString('base64'), 76, '\r\n')],
  ['MIME base64, 76 columns, LF', (h) => wrap(utf8(body(h)).toString('base64'), 76, '\n')],
  [
    'PEM-like base64, 64 columns',
    (h) =>
      `-----BEGIN ECHO-----\n${wrap(utf8(body(h, 30)).toString('base64'), 64, '\n')}\n-----END ECHO-----`,
  ],
  ['base64, 20 columns, CRLF', (h) => wrap(utf8(body(h)).toString('base64'), 20, '\r\n')],
  ['base64, 33 columns, LF', (h) => wrap(utf8(body(h)).toString('base64'), 33, '\n')],
  ['base64, 8 columns, LF', (h) => wrap(utf8(body(h)).toString('base64'), 8, '\n')],
  [
    'base64, 20 columns, JSON-escaped CRLF',
    (h) => JSON.stringify(wrap(utf8(body(h)).toString('base64'), 20, '\r\n')),
  ],
  [
    'base64, 20 columns, JSON-escaped CRLF, inside a JSON string',
    (h) => JSON.stringify(JSON.stringify(wrap(utf8(body(h)).toString('base64'), 20, '\r\n'))),
  ],
  [
    'base64, 24 columns, its first line after a label',
    (h) => {
      const base64 = utf8(body(h)).toString('base64');
      return `auth: ${base64.slice(0, 18)}\n${wrap(base64.slice(18), 24, '\n')}`;
    },
  ],
  ['base64 of base64', (h) => utf8(utf8(h).toString('base64')).toString('base64')],
  [
    'base64url of base64, after 1 byte',
    (h) => utf8(`x${utf8(h).toString('base64')}`).toString('base64url'),
  ],
  [
    'base64 of base64url of a body',
    (h) => utf8(utf8(body(h)).toString('base64url')).toString('base64'),
  ],
  [
    'base64 in a URL, percent-encoded',
    (h) => `https://gw.example/echo?auth=${encodeURIComponent(utf8(`xx${h}`).toString('base64'))}`,
  ],
  [
    'base64 with + and / as \\u002B and \\u002F (System.Text.Json)',
    (h) => utf8(`xx${h}`).toString('base64').replace(/\+/g, '\\u002B').replace(/\//g, '\\u002F'),
  ],
  ['base64 without padding', (h) => utf8(`${h}!`).toString('base64').replace(/=+$/, '')],
  ['UTF-16LE in base64', (h) => Buffer.from(h, 'utf16le').toString('base64')],
  [
    'UTF-16LE in base64, after 1 byte',
    (h) => Buffer.from(`\u0000${h}`, 'utf16le').subarray(1).toString('base64'),
  ],
  ['UTF-16BE in base64', (h) => Buffer.from(h, 'utf16le').swap16().toString('base64')],
  ['UTF-16LE in hex', (h) => Buffer.from(h, 'utf16le').toString('hex')],
  ['quoted-printable', (h) => quotedPrintable(`echo: ${'q'.repeat(50)} authorization=${h}`)],
  ['decimal bytes [66,101,...]', (h) => `[${[...utf8(h)].join(',')}]`],
  ['decimal bytes [66, 101, ...]', (h) => `[${[...utf8(h)].join(', ')}]`],
  ['decimal bytes 66 101 ...', (h) => [...utf8(h)].join(' ')],
  ['decimal bytes pretty-printed, a byte a line', (h) => JSON.stringify([...utf8(h)], null, 2)],
  [
    'decimal bytes pretty-printed, inside a JSON string',
    (h) => JSON.stringify(JSON.stringify([...utf8(h)], null, 2)),
  ],
  ['decimal bytes a line each, CRLF', (h) => [...utf8(h)].join('\r\n')],
  ['hex bytes 0x42,\\n  0x65,...', (h) => `[\n  ${hexBytes(h, (x) => `0x${x}`, ',\n  ')}\n]`],
  ['hex bytes 42:65:...', (h) => hexBytes(h, (x) => x, ':')],
  ['hex bytes 42 65 ...', (h) => hexBytes(h, (x) => x, ' ')],
  ['hex bytes 0x42,0x65,...', (h) => hexBytes(h, (x) => `0x${x}`, ',')],
  ['hex bytes {0x42, 0x65, ...}', (h) => `{${hexBytes(h, (x) => `0X${x.toUpperCase()}`, ', ')}}`],
  // Cut short: the first 12 characters of the key (after "Bearer "), or 16 of its base64.
  ['cut to 12 characters of the key', (h, key = keyOf(h)) => `${h.slice(0, h.indexOf(key) + 12)}…`],
  [
    'cut to 16 characters of the base64 of the key',
    (h, key = keyOf(h)) => `${utf8(key).toString('base64').slice(0, 16)}...`,
  ],
];

/**
 * The part of `encode(text)` that depends on `key`, which `text` holds: from the first to the
 * last character that changes when the key is another of the same length. Found by trial, not
 * by knowing the encoding, so that a test checks the redaction by means other than its own.
 */
export function keyBearingPart(encode: Encode, text: string, key: string) {
  const encoded = encode(text, key);
  const otherKey = [...key].map((ch) => (ch === 'Q' ? 'J' : 'Q')).join('');
  const other = encode(text.replace(key, otherKey), otherKey);
  let first = 0;
  while (first < encoded.length && encoded[first] === other[first]) first++;
  let last = encoded.length - 1;
  const shift = other.length - encoded.length;
  while (last > first && encoded[last] === other[last + shift]) last--;
  return encoded.slice(first, last + 1);
}

/**
 * Whether `output` holds a piece of a key-bearing part (of a key `length` characters long) as
 * long as 8 characters of the key in that encoding, or 16 characters, whichever is longer (a
 * part cut short: all of it). Shorter pieces of a verbose encoding also occur in what is not
 * the key: the entities of "as" are in both "Basic" and "pass".
 */
export function leaksPart(output: string, part: string, length: number): boolean {
  const width = Math.min(part.length, Math.max(16, Math.ceil((8 * part.length) / length)));
  for (let i = 0; i + width <= part.length; i++) {
    if (output.includes(part.slice(i, i + width))) return true;
  }
  return false;
}
