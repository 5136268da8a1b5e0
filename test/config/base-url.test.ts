import { describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../src/config/base-url.js';
import { UsageError } from '../../src/core/errors.js';

describe('checkBaseUrl', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com/v1'],
    ['https://api.example.com/v1/', 'https://api.example.com/v1'],
    ['http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080/v1'],
    ['http://127.1.2.3/v1', 'http://127.1.2.3/v1'],
    ['http://localhost:3000/v1', 'http://localhost:3000/v1'],
    ['http://[::1]:3000/v1', 'http://[::1]:3000/v1'],
  ])('accepts %s', (given, expected) => {
    expect(checkBaseUrl(given, '--base-url')).toBe(expected);
  });

  it.each([
    ['http://api.example.com/v1', /loopback/],
    ['http://10.0.0.1/v1', /loopback/],
    ['http://127.0.0.1.example.com/v1', /loopback/],
    ['ftp://example.com/v1', /https/],
    ['api.example.com/v1', /not a URL/],
    ['https://user:secret@api.example.com/v1', /user name or password/],
    ['https://api.example.com/v1?x=1', /query/],
    // Resolved through DNS, not pinned to this machine: whoever answers would get the key.
    [
      'http://api.localhost:8080/v1',
      /api\.localhost is looked up in DNS.*http:\/\/127\.0\.0\.1:8080\/v1/,
    ],
    ['http://evil.localhost/v1', /looked up in DNS/],
  ])('refuses %s with exit 2', (given, why) => {
    expect(() => checkBaseUrl(given, '--base-url')).toThrow(why);
    expect(() => checkBaseUrl(given, '--base-url')).toThrow(UsageError);
  });

  it('never echoes a password from the URL', () => {
    try {
      checkBaseUrl('https://user:hunter2secret@api.example.com/v1', '--base-url');
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2secret');
    }
  });
});
