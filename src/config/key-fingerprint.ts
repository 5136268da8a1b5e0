import { hash } from 'node:crypto';

/**
 * Names a key without holding it: a SHA-256 prefix tells keys apart and says nothing usable
 * about a random key. For records that must say which key they belong to (a journal).
 */
export function keyFingerprint(apiKey: string): string {
  return hash('sha256', apiKey, 'hex').slice(0, 16);
}
