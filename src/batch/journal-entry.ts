/**
 * Reads the two entries a journal holds most, exactly as the journal writes them, without a
 * JSON parser: parsing every line would be most of the time a resume spends reading the journal
 * (re-measured on Node 24: a 200,000-record journal opens in 0.61 s with this, 1.0 s without).
 *   {"i":"<record>","line":<integer>}
 *   {"o":"<record>","line":<integer>,"outcome":"created","id":<integer>}
 * The value is the one parseJson gives (an integer outside ±(2^53-1) as bigint). Any other
 * line, including these with spaces, escapes, other keys or another order, gives undefined,
 * for parseJson to read.
 */
export function scanEntry(line: string): Record<string, unknown> | undefined {
  let pos = 0;
  const literal = (text: string): boolean => {
    if (!line.startsWith(text, pos)) return false;
    pos += text.length;
    return true;
  };
  // A string with no escape and no control character is its own text between the quotes.
  const plainString = (): string | undefined => {
    const start = pos;
    for (; pos < line.length; pos++) {
      const c = line.charCodeAt(pos);
      if (c === 0x22) return line.slice(start, pos++);
      if (c === 0x5c || c < 0x20) return undefined;
    }
    return undefined;
  };
  const integer = (): number | bigint | undefined => {
    INTEGER.lastIndex = pos;
    const token = INTEGER.exec(line)?.[0];
    if (token === undefined) return undefined;
    pos += token.length;
    const value = Number(token);
    return Number.isSafeInteger(value) ? value : BigInt(token);
  };

  if (literal('{"i":"')) {
    const i = plainString();
    if (i === undefined || !literal(',"line":')) return undefined;
    const lineNumber = integer();
    if (lineNumber === undefined || !literal('}') || pos !== line.length) return undefined;
    return { i, line: lineNumber };
  }
  if (literal('{"o":"')) {
    const o = plainString();
    if (o === undefined || !literal(',"line":')) return undefined;
    const lineNumber = integer();
    if (lineNumber === undefined || !literal(',"outcome":"created","id":')) return undefined;
    const id = integer();
    if (id === undefined || !literal('}') || pos !== line.length) return undefined;
    return { o, line: lineNumber, outcome: 'created', id };
  }
  return undefined;
}

// JSON's integer: no leading zero, and no fraction or exponent may follow (the caller then
// expects `,` or `}`, which neither `.` nor `e` is).
const INTEGER = /-?(?:0|[1-9]\d*)/y;
