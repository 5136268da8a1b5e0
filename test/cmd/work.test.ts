// The work functions of commands, called as a test calls any function: (options, deps) in,
// data out, nothing printed. The end-to-end tests check the same commands through the binary.
import { describe, expect, it } from 'vitest';
import type { PetsApi } from '../../src/api/client.js';
import { checkKey, login } from '../../src/cmd/auth/login.js';
import { logout } from '../../src/cmd/auth/logout.js';
import { authStatus } from '../../src/cmd/auth/status.js';
import { removeProfile } from '../../src/cmd/profile/remove.js';
import { setProfile } from '../../src/cmd/profile/set.js';
import { useProfile } from '../../src/cmd/profile/use.js';
import {
  listProfiles,
  profileInUse,
  savedProfile,
  showProfile,
} from '../../src/cmd/profile/view.js';
import { openConfigStore } from '../../src/config/store.js';
import { AuthError, InterruptedError, NetworkError, UsageError } from '../../src/core/errors.js';
import { tempConfigDir } from '../helpers/config-dir.js';
import { stagingTarget } from '../helpers/api-env.js';

const BASE = 'https://api.example.com/v1';
const target = stagingTarget(BASE);

/** An API whose one GET answers with `answer`: nothing (a 200), or an error thrown. */
function answering(answer?: Error): { api: PetsApi; sent: () => number } {
  let sent = 0;
  const api = {
    listPets: async () => {
      sent++;
      if (answer) throw answer;
      return [];
    },
  } as unknown as PetsApi;
  return { api, sent: () => sent };
}

describe('checkKey', () => {
  it('accepts a key the server answers with 200, after one GET', async () => {
    const { api, sent } = answering();
    expect(await checkKey(target, { api })).toEqual({ outcome: 'accepted' });
    expect(sent()).toBe(1);
  });

  it('refuses a key the server refuses (401), naming the host, and saves nothing', async () => {
    const { api } = answering(new AuthError('invalid_key', 'refused'));
    const error = await checkKey(target, { api }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toBe(
      'api.example.com refused the key (401); it was not saved',
    );
  });

  it('leaves a key unchecked when the server cannot be reached, saying why', async () => {
    const unreachable = new NetworkError(
      'connection_refused',
      'could not connect to api.example.com',
      {
        requestMayHaveArrived: false,
      },
    );
    const { api } = answering(unreachable);
    expect(await checkKey(target, { api })).toEqual({
      outcome: 'unchecked',
      why: 'could not connect to api.example.com',
    });
  });

  it('passes an interrupt on as it is', async () => {
    const { api } = answering(new InterruptedError());
    await expect(checkKey(target, { api })).rejects.toBeInstanceOf(InterruptedError);
  });
});

describe('authStatus', () => {
  it('says where each setting came from, with the key shown by its last 4 characters', async () => {
    const { api, sent } = answering();
    const status = await authStatus({ ...target, baseUrlSource: 'environment' }, { api });
    expect(sent()).toBe(1);
    expect(status).toMatchObject({
      profile: 'staging',
      baseUrl: BASE,
      baseUrlSource: 'environment',
      key: '****5678',
      keySource: 'config',
      valid: true,
    });
  });

  it('throws the refusal of the key as it came', async () => {
    const refused = new AuthError('invalid_key', 'refused');
    await expect(authStatus(target, answering(refused))).rejects.toBe(refused);
  });
});

describe('setProfile, useProfile, removeProfile', () => {
  it('create a profile, make it the active one, and remove it; a built-in one is cleared', async () => {
    const config = openConfigStore(tempConfigDir());
    const set = await setProfile('dev', { baseUrl: BASE, protected: true }, { config });
    expect(set).toMatchObject({ name: 'dev', baseUrl: BASE, protected: true });
    expect((await useProfile('dev', { config })).active).toBe(true);
    expect(config.read().activeProfile).toBe('dev');
    expect(await removeProfile('dev', { config })).toEqual({
      name: 'dev',
      cleared: false,
      nowActive: 'production',
    });
    expect(config.read().profiles.dev).toBeUndefined();
    await setProfile('staging', { baseUrl: BASE }, { config });
    expect(await removeProfile('staging', { config })).toEqual({ name: 'staging', cleared: true });
    expect(config.read().profiles.staging).toEqual({});
  });

  it('refuse a profile set that sets nothing, or an unknown profile', async () => {
    const config = openConfigStore(tempConfigDir());
    await expect(setProfile('staging', {}, { config })).rejects.toBeInstanceOf(UsageError);
    await expect(useProfile('nosuch', { config })).rejects.toThrow(/nosuch/);
    await expect(removeProfile('nosuch', { config })).rejects.toThrow(/nosuch/);
  });
});

describe('login and logout', () => {
  it("save the chosen profile's key (trimmed) and address, and remove the key again", async () => {
    const config = openConfigStore(tempConfigDir());
    const saved = await login(
      { profileFlag: 'staging', key: '  key_abcdefgh12345678\n', baseUrl: BASE },
      { config, env: {} },
    );
    expect(saved).toEqual({ profile: 'staging', key: '****5678', baseUrl: BASE });
    expect(config.read().profiles.staging).toMatchObject({
      apiKey: 'key_abcdefgh12345678',
      baseUrl: BASE,
    });
    // PETS_PROFILE chooses the profile when no --profile is given.
    const env = { PETS_PROFILE: 'staging' };
    expect(await logout({}, { config, env })).toEqual({ profile: 'staging', removed: true });
    expect(config.read().profiles.staging).toEqual({ baseUrl: BASE });
    expect(await logout({}, { config, env })).toEqual({ profile: 'staging', removed: false });
  });

  it('refuse an empty key or one too short to redact, and save nothing', async () => {
    const config = openConfigStore(tempConfigDir());
    const before = config.read();
    for (const key of ['  \n', 'abc']) {
      await expect(login({ key }, { config, env: {} })).rejects.toBeInstanceOf(UsageError);
    }
    expect(config.read()).toEqual(before);
  });
});

describe('listProfiles, showProfile, savedProfile, profileInUse', () => {
  it('list every profile, the one in use and why, with the environment applied', async () => {
    const config = openConfigStore(tempConfigDir());
    await setProfile('staging', { baseUrl: BASE }, { config });
    const env = { PETS_PROFILE: 'staging', PETS_API_KEY: 'key_from_the_env_9876' };
    expect(listProfiles({ config, env: {} }).map((p) => [p.name, p.active])).toEqual([
      ['production', true],
      ['staging', false],
    ]);
    expect(showProfile('staging', { config, env })).toMatchObject({
      active: true,
      activeSource: 'environment',
      baseUrl: BASE,
      baseUrlSource: 'config',
      key: '****9876',
      keySource: 'environment',
      protected: false,
    });
    expect(showProfile('staging', { config, env: {}, profileFlag: 'staging' })).toMatchObject({
      activeSource: 'flag',
    });
    // As saved: no environment, and production active.
    expect(savedProfile('staging', { config })).toMatchObject({ active: false, key: '(none)' });
    expect(profileInUse({ config, env })).toEqual({ name: 'staging', source: 'environment' });
    expect(profileInUse({ config, env: { PETS_PROFILE: 'nosuch' } })).toBeUndefined();
    expect(() => showProfile('nosuch', { config, env: {} })).toThrow(/no profile named "nosuch"/);
  });
});
