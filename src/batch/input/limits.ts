// Caps that keep one broken or hostile input from exhausting memory.

/** A single NDJSON line or CSV record; real pets are a few hundred bytes. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** A JSON array is parsed whole, so its size is what bounds memory. */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;
