export type Validation<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads an own property only, so a JSON body cannot reach Object.prototype. */
export function ownField(record: object, name: string): unknown {
  return Object.hasOwn(record, name) ? (record as Record<string, unknown>)[name] : undefined;
}
