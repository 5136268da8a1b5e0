import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir } from '../../src/config/paths.js';
import { cacheDir } from '../../src/runtime/compile-cache.js';

describe('configDir and cacheDir', () => {
  it('take PETS_CONFIG_DIR first, then the XDG variable, then the home folder', () => {
    expect(configDir({ PETS_CONFIG_DIR: '/p', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/p');
    expect(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe(join('/x', 'pets'));
    expect(configDir({ HOME: '/h' })).toBe(join('/h', '.config', 'pets'));
    expect(cacheDir({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe(join('/c', 'pets'));
    expect(cacheDir({ HOME: '/h' })).toBe(join('/h', '.cache', 'pets'));
  });

  it('ask the system for the home folder when HOME is not set', () => {
    expect(configDir({})).toBe(join(homedir(), '.config', 'pets'));
    expect(cacheDir({})).toBe(join(homedir(), '.cache', 'pets'));
  });

  it('take an empty XDG variable as unset, as the XDG spec says', () => {
    expect(configDir({ XDG_CONFIG_HOME: '', HOME: '/h' })).toBe(join('/h', '.config', 'pets'));
    expect(cacheDir({ XDG_CACHE_HOME: '', HOME: '/h' })).toBe(join('/h', '.cache', 'pets'));
  });

  it.each([
    [
      { HOME: '' },
      /^HOME is empty, so pets has no folder for its config and rate-limit state$/,
      /^Set HOME to an absolute path, or PETS_CONFIG_DIR/,
    ],
    [{ HOME: 'home' }, /^HOME is "home", not an absolute path/, /^Set HOME /],
    [
      { XDG_CONFIG_HOME: '.', HOME: '/h' },
      /^XDG_CONFIG_HOME is "\.", not an absolute path/,
      /^Set XDG_CONFIG_HOME /,
    ],
    [
      { PETS_CONFIG_DIR: 'conf', HOME: '/h' },
      /^PETS_CONFIG_DIR is "conf", not/,
      /^Set PETS_CONFIG_DIR to an absolute path\.$/,
    ],
  ])(
    'refuse a config folder that is not absolute (%o): exit 2, saying what to set',
    (env, message, hint) => {
      expect(() => configDir(env)).toThrow(
        expect.objectContaining({
          exitCode: 2,
          message: expect.stringMatching(message),
          hint: expect.stringMatching(hint),
        }),
      );
    },
  );

  it('give no cache folder, silently, where it would not be absolute', () => {
    expect(cacheDir({ HOME: '' })).toBeUndefined();
    expect(cacheDir({ XDG_CACHE_HOME: 'cache', HOME: '/h' })).toBeUndefined();
  });
});
