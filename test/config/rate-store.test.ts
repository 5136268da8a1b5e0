import { describe, expect, it } from 'vitest';
import { checkRateStore, urlPassword } from '../../src/config/rate-store.js';
import { UsageError } from '../../src/core/errors.js';

// The check of a rate store's URL, before anything is sent: what it passes, the store's
// client must be able to read.

describe('a rate store URL with a % that escapes nothing', () => {
  it.each([
    ['the password', 'redis://:secret%zz@127.0.0.1:6379'],
    ['the password, at its end', 'redis://ci:secret-pw%@127.0.0.1:6379/1'],
    ['the user', 'redis://us%g1er:secret-pw@127.0.0.1:6379'],
  ])('in %s is refused as a bad store (exit 2), without quoting it', (_, url) => {
    let thrown: unknown;
    try {
      checkRateStore(url, 'PETS_RATE_STORE', 'environment');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    const error = thrown as UsageError;
    expect(error.code).toBe('bad_rate_store');
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/^PETS_RATE_STORE has a user or password with a % that/);
    expect(`${error.message} ${error.hint ?? ''}`).not.toMatch(/secret|us%g1er/);
  });

  it('is still redacted as written until then', () => {
    expect(urlPassword('redis://:secret%zz@127.0.0.1:6379')).toBe('secret%zz');
    expect(urlPassword('redis://:p%40ss@127.0.0.1:6379')).toBe('p@ss');
  });

  it('passes when each % is an escape, and keeps the database it names', () => {
    const address = checkRateStore('redis://:100%25-sure@127.0.0.1:6379/3', 'X', 'config');
    expect(address).toMatchObject({ password: '100%-sure', database: 3 });
    expect(checkRateStore('redis://127.0.0.1', 'X', 'config').database).toBeUndefined();
  });
});
