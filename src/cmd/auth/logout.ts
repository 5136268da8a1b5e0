import type { Command } from 'commander';
import type { Env } from '../../config/paths.js';
import { chooseProfile } from '../../config/resolve-target.js';
import type { ConfigStore } from '../../config/store.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

export async function logout(
  options: { profileFlag?: string },
  deps: { config: ConfigStore; env: Env },
): Promise<{ profile: string; removed: boolean }> {
  return deps.config.update((data) => {
    const name = chooseProfile(data, options.profileFlag, deps.env).name;
    const saved = data.profiles[name] ?? {};
    const removed = saved.apiKey !== undefined;
    const { apiKey: _dropped, ...rest } = saved;
    data.profiles[name] = rest;
    return { profile: name, removed };
  });
}

export function defineLogout(auth: Command, getSession: SessionSource): void {
  auth
    .command('logout')
    .description("remove the profile's stored API key")
    .addHelpText('before', examples('pets auth logout', 'pets auth logout --profile staging'))
    .action(async () => {
      const session = getSession();
      const result = await logout(
        { profileFlag: session.globals.profile },
        { config: await session.config(), env: session.env },
      );
      session.terminal.notice(
        result.removed
          ? `Removed the key of profile "${result.profile}".`
          : `Profile "${result.profile}" had no stored key.`,
      );
    });
}
