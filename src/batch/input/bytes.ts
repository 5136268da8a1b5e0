const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Turns the input into byte chunks without a leading UTF-8 BOM. Every reader works on bytes:
 * the delimiters are ASCII, so they can be found before decoding, and a character split
 * across two chunks never needs special care.
 */
export async function* bytesWithoutBom(
  input: AsyncIterable<Buffer | Uint8Array | string>,
): AsyncGenerator<Buffer> {
  // The BOM itself may arrive split across chunks, so hold the first bytes until they
  // either complete it or stop matching it.
  let head: Buffer | undefined = Buffer.alloc(0);
  for await (const chunk of input) {
    let bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (head !== undefined) {
      bytes = head.length === 0 ? bytes : Buffer.concat([head, bytes]);
      if (bytes.length < UTF8_BOM.length && UTF8_BOM.subarray(0, bytes.length).equals(bytes)) {
        head = bytes;
        continue;
      }
      head = undefined;
      if (bytes.subarray(0, UTF8_BOM.length).equals(UTF8_BOM)) {
        bytes = bytes.subarray(UTF8_BOM.length);
      }
    }
    if (bytes.length > 0) yield bytes;
  }
  if (head !== undefined && head.length > 0) yield head;
}
