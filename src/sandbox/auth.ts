import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER = /^Bearer +(\S+) *$/i;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** True when the Authorization header carries `expectedKey` as a bearer token. */
export function hasBearerKey(authorization: string | undefined, expectedKey: string): boolean {
  const sent = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  // Comparing digests keeps the comparison constant-time whatever the lengths.
  return sent !== undefined && timingSafeEqual(digest(sent), digest(expectedKey));
}
