import { describe, expect, it, vi } from 'vitest';
import { toInt64 } from '../../src/api/contract.js';
import { JsonSyntaxError, parseJson, stringifyJson } from '../../src/json/int64-json.js';

describe('parseJson', () => {
  it('keeps integers beyond 2^53 exact as bigint', () => {
    const parsed = parseJson('{"id":9007199254740993,"categoryId":-9223372036854775808}');
    expect(parsed).toEqual({ id: 9007199254740993n, categoryId: -9223372036854775808n });
  });

  it('keeps safe integers and fractions as numbers', () => {
    expect(parseJson('[1,-2,9007199254740991,1.5,2e3,-0.25]')).toEqual([
      1, -2, 9007199254740991, 1.5, 2000, -0.25,
    ]);
  });

  it.each([
    ['null', null],
    ['true', true],
    ['false', false],
    ['"a\\u001bb\\n\\"q\\""', 'a\u001bb\n"q"'],
    ['  {"a" : [ ] , "b":{}}  ', { a: [], b: {} }],
    ['"日本語 🐶"', '日本語 🐶'],
  ])('parses %s like JSON.parse', (text, expected) => {
    expect(parseJson(text)).toEqual(expected);
  });

  it('keeps a "__proto__" key as data', () => {
    const parsed = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    '',
    '{',
    '[1,]',
    '{"a":1,}',
    '01',
    '1.',
    '"unterminated',
    '"raw\u0001control"',
    '"bad \\x escape"',
    'nul',
    '[1] [2]',
    '{"a" 1}',
  ])('rejects %j without quoting the input', (text) => {
    expect(() => parseJson(text)).toThrow(JsonSyntaxError);
    try {
      parseJson(`{"secret":"sk_live_canary", "x": ${text}`);
    } catch (error) {
      expect((error as Error).message).not.toContain('sk_live_canary');
    }
  });

  it('refuses nesting deep enough to exhaust the stack', () => {
    expect(() => parseJson('['.repeat(10_000) + ']'.repeat(10_000))).toThrow(/nesting too deep/);
  });

  it('sets the same depth limit whichever parser reads the text', () => {
    // A 16-digit run sends the text to the careful parser; without one JSON.parse reads it.
    const nested = (levels: number, inner: string) =>
      '['.repeat(levels) + inner + ']'.repeat(levels);
    for (const inner of ['0', '"1234567890123456"']) {
      expect(() => parseJson(nested(512, inner))).not.toThrow();
      expect(() => parseJson(nested(513, inner))).toThrow(/nesting too deep at position 512/);
    }
  });

  it('reads a large shallow document with one JSON.parse call', () => {
    const pets = Array.from({ length: 2_000 }, (_, id) => ({ id, name: `Rex ${id}`, tags: [] }));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(parseJson(JSON.stringify(pets))).toEqual(pets);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('parses a long string quickly and exactly', () => {
    const long = 'x'.repeat(1_000_000);
    expect(parseJson(JSON.stringify({ long }))).toEqual({ long });
  });
});

describe('stringifyJson', () => {
  it('writes bigint as bare digits', () => {
    expect(stringifyJson({ id: 9007199254740993n, n: 1 })).toBe('{"id":9007199254740993,"n":1}');
  });

  it('round-trips through parseJson exactly', () => {
    const text =
      '[{"id":9223372036854775807,"name":"Rex","categoryId":9007199254740993,"status":"sold"}]';
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('matches JSON.stringify for plain values, indented or not', () => {
    const value = { a: [1, 'two', { three: null }], b: true, c: {}, d: [], e: undefined, f: 'ü' };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
    expect(stringifyJson(value, 2)).toBe(JSON.stringify(value, null, 2));
  });

  it('escapes DEL, C1 and bidi controls that JSON.stringify leaves raw', () => {
    const json = stringifyJson({ name: 'a\u007f\u009b\u202e\u2066\u2028b\u001b' });
    expect(json).toBe('{"name":"a\\u007f\\u009b\\u202e\\u2066\\u2028b\\u001b"}');
    expect(JSON.parse(json)).toEqual({ name: 'a\u007f\u009b\u202e\u2066\u2028b\u001b' });
  });

  it('cannot be fooled by strings that look like bigint placeholders', () => {
    const name = '\u0000bigint:0\u0000';
    expect(JSON.parse(stringifyJson({ id: 5n, name }))).toEqual({ id: 5, name });
  });
});

describe('parseJson errors', () => {
  it.each([
    ['[1,]', 'unexpected character at position 3'],
    ['{"a":}', 'unexpected character at position 5'],
    ['abc', 'unexpected character at position 0'],
    ['{"name":"SECRET" oops}', "expected ',' or '}' after property value at position 17"],
    ['[1,2', "expected ',' or ']' after array element at position 4"],
    ['{"a":1', "expected ',' or '}' after property value at position 6"],
    ['{"a":', 'unexpected end of input at position 5'],
    ['', 'unexpected end of input at position 0'],
  ])('%j: %s', (text, message) => {
    const position = Number(/\d+$/.exec(message)?.[0]);
    expect(() => parseJson(text)).toThrow(new JsonSyntaxError(message, position));
    expect(() => parseJson(`[12345678901234567, ${text}`)).toThrow(JsonSyntaxError);
  });

  it('refuses deep nesting in text that needs the reviver too', () => {
    const deep = `${'['.repeat(20_000)}12345678901234567${']'.repeat(20_000)}`;
    expect(() => parseJson(deep)).toThrow(/nesting too deep at position 512/);
  });

  it('reads integers beyond 2^53 inside nested values, and digits only when asked', () => {
    expect(parseJson('{"a":[{"id":-9223372036854775808}],"b":1.5e3}')).toEqual({
      a: [{ id: -9223372036854775808n }],
      b: 1500,
    });
    // A fraction or an exponent is kept as written, which no integer check takes.
    const digitsOnly = parseJson('[1, 1.0, 1e3, 1.0000000000000001, 9223372036854775807]', {
      integersAsDigitsOnly: true,
    }) as unknown[];
    expect(stringifyJson(digitsOnly)).toBe('[1,1.0,1e3,1.0000000000000001,9223372036854775807]');
    expect(digitsOnly.map(toInt64)).toEqual([
      1n,
      undefined,
      undefined,
      undefined,
      9223372036854775807n,
    ]);
    // Digits inside a string are not a number.
    expect(parseJson('["1.5", "12345678901234567"]', { integersAsDigitsOnly: true })).toEqual([
      '1.5',
      '12345678901234567',
    ]);
  });
});
