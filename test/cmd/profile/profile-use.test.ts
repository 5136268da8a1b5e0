import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { profileChoices } from '../../../src/cmd/profile/use.js';
import type { ConfigData } from '../../../src/config/store.js';

describe('the profile use picker', () => {
  it('lines up the hosts and the marks in columns, whatever the lengths of the names', () => {
    const data = {
      activeProfile: 'production',
      profiles: {
        dev: { baseUrl: 'http://127.0.0.1:4010/v1' },
        production: { baseUrl: 'https://api.example.com/v1', protected: true },
        'a-much-longer-name': { baseUrl: 'https://staging.example.com/v1' },
        empty: {},
      },
    } as unknown as ConfigData;
    const shown = profileChoices(data, stringWidth).map((choice) => choice.name);
    expect(shown).toEqual([
      'a-much-longer-name  staging.example.com',
      'dev                 127.0.0.1:4010',
      'empty               no base URL',
      'production          api.example.com      (active, protected)',
    ]);
    // Every host starts in the same column.
    const hostColumns = shown.map((line) => line.search(/ {2}\S/) + 2);
    expect(new Set(hostColumns).size).toBe(1);
  });
});
