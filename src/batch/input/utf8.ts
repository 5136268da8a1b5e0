/**
 * A strict decoder: invalid UTF-8 must become a problem on its record, not U+FFFD silently
 * stored in a pet's name. `ignoreBOM` keeps a U+FEFF inside the data; the input's leading
 * BOM is dropped earlier, once.
 */
export function strictUtf8Decoder(): (bytes: Uint8Array) => string | undefined {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  return (bytes) => {
    try {
      return decoder.decode(bytes);
    } catch {
      return undefined;
    }
  };
}

export const NOT_UTF8 = 'not valid UTF-8';
