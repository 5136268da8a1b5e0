// Text from a server or a file must not drive the terminal: C0 and C1 controls, DEL and bidi
// overrides are shown as \uXXXX instead of being sent raw.
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
