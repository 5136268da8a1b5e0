// Text from a server or a file must not drive the terminal, in text or in JSON output: C0
// and C1 controls, DEL and bidi overrides are shown as \uXXXX instead of being sent raw. So
// are characters that print as nothing, which make two different names look alike:
// zero-width space and word joiners, the BOM, Hangul fillers, interlinear annotation marks
// and tag characters (U+E0000-E007F, escaped as their two UTF-16 halves).
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

const HAS_UNSAFE = new RegExp(UNSAFE.source);

/** Quotes a word for a POSIX shell, where it needs it: a command a person is told to run. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

export function escapeForTerminal(text: string): string {
  if (!HAS_UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, (match) =>
    match
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  );
}
