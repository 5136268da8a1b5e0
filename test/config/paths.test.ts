import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir, configDir } from '../../src/config/paths.js';

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
    expect(cacheDir({ HOME: '' })).toBe(join(homedir(), '.cache', 'pets'));
  });
});
