import { sha256Hex } from '../core/sha256.js';

/**
 * Names a key without holding it: a SHA-256 prefix tells keys apart and says nothing usable
 * about a random key. For records that must say which key they belong to (a journal).
 */
export function keyFingerprint(apiKey: string): string {
  return sha256Hex(apiKey).slice(0, 16);
}
