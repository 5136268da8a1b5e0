import type { Command } from 'commander';
import { checkBaseUrl } from '../../config/base-url.js';
import { checkProfileName } from '../../config/store.js';
import { UsageError } from '../../core/errors.js';
import { savedProfile, type ConfigDeps, type ProfileSummary } from './view.js';
import { examples } from '../shared/help-text.js';
import type { SessionSource } from '../shared/session.js';

/** Creates the profile if it does not exist yet, or changes what is given; keeps its key. */
export async function setProfile(
  name: string,
  settings: { baseUrl?: string; protected?: boolean },
  deps: ConfigDeps,
): Promise<ProfileSummary> {
  checkProfileName(name);
  if (settings.baseUrl === undefined && settings.protected === undefined) {
    throw new UsageError('profile set needs --base-url, --protected or --no-protected', {
      hint: `Example: pets profile set ${name} --base-url https://api.example.com/v1`,
    });
  }
  const baseUrl =
    settings.baseUrl === undefined ? undefined : checkBaseUrl(settings.baseUrl, '--base-url');
  await deps.config.update((data) => {
    data.profiles[name] = {
      ...data.profiles[name],
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(settings.protected === undefined ? {} : { protected: settings.protected }),
    };
  });
  return savedProfile(name, deps);
}

export function defineSet(profile: Command, getSession: SessionSource): void {
  profile
    .command('set')
    .description('create a profile, or change its base URL or protection')
    .argument('<name>', 'profile name')
    .option('--base-url <url>', 'the API address ending in /v1 (https, or http to loopback)')
    .option(
      '--protected',
      'show a badge on creates and ask before batches (production has it by default)',
    )
    .option('--no-protected', 'stop guarding this profile')
    .addHelpText(
      'before',
      examples(
        'pets profile set production --base-url https://api.example.com/v1',
        'pets profile set eu-prod --base-url https://eu.example.com/v1 --protected',
      ),
    )
    .action(async (name: string, options: { baseUrl?: string; protected?: boolean }) => {
      const session = getSession();
      const saved = await setProfile(name, options, { config: await session.config() });
      session.notice(
        `Saved profile "${saved.name}": ${saved.baseUrl ?? 'no base URL yet'}` +
          (saved.protected ? ' (protected)' : '') +
          '.',
      );
      if (saved.key === '(none)') session.notice(`Next: pets auth login --profile ${saved.name}`);
    });
}
