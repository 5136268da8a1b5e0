import { describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/config/key-fingerprint.js';
import { stateName } from '../../src/ratelimit/state-store.js';

// Journals name their key, and the shared rate-limit state is a file named for the key and
// origin: both names must stay what earlier versions wrote (here, as sha256sum computes them).
describe('the names that stand for a key', () => {
  it('are the first 16 hex digits of a SHA-256', () => {
    expect(keyFingerprint('sk_live_example_key')).toBe('ceea4bcbe87c9b87');
    expect(stateName('https://api.example.com', 'abcdef0123456789')).toBe('b610ce542e043863');
  });
});
