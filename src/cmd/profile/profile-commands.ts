import type { Command } from 'commander';
import type { ProfileSummary } from './profile.js';
import type { SettingSource } from '../../config/resolve-target.js';
import type { Column } from '../../output/render.js';
import { BUILT_IN_PROFILES } from '../../config/store.js';
import { confirmProtectedProfile } from '../shared/confirm.js';
import { examples, type SessionSource } from '../root.js';
import type { Session } from '../shared/session.js';

/**
 * Profiles' columns. On a terminal a value the environment set names its variable; TSV keeps
 * the bare values for scripts (--json has the sources as fields).
 */
function profileColumns(mode: 'table' | 'tsv'): readonly Column<ProfileSummary>[] {
  const withSource = (value: string, source: string | null, variable: string) =>
    mode === 'table' && source === 'environment' ? `${value} (${variable})` : value;
  return [
    {
      title: 'ACTIVE',
      text: (p) => (p.active ? '*' : ''),
      color: (_p, text, colors) => colors.green(text),
    },
    { title: 'NAME', text: (p) => p.name },
    {
      title: 'BASE URL',
      text: (p) => withSource(p.baseUrl ?? '(not set)', p.baseUrlSource, 'PETS_BASE_URL'),
    },
    { title: 'KEY', text: (p) => withSource(p.key, p.keySource, 'PETS_API_KEY') },
    { title: 'PROTECTED', text: (p) => (p.protected ? 'yes' : '') },
  ];
}

const FROM: Record<SettingSource, (setting: string) => string> = {
  flag: () => 'from --profile',
  environment: (variable) => `from ${variable}`,
  config: () => 'from the config',
};

function profileFields(p: ProfileSummary): Array<[string, string]> {
  const from = (source: SettingSource | null, variable: string) =>
    source ? ` (${FROM[source](variable)})` : '';
  return [
    ['name', p.name],
    ['in use', p.active ? `yes${from(p.activeSource, 'PETS_PROFILE')}` : 'no'],
    ['base url', `${p.baseUrl ?? '(not set)'}${from(p.baseUrlSource, 'PETS_BASE_URL')}`],
    ['key', `${p.key}${from(p.keySource, 'PETS_API_KEY')}`],
    ['protected', p.protected ? 'yes' : 'no'],
  ];
}

async function printProfiles(run: Session, profiles: ProfileSummary[], asFields: boolean) {
  if (run.mode === 'json') return run.printJson(asFields ? profiles[0] : profiles);
  const { renderRows, renderFields } = await import('../../output/render.js');
  const colors = await run.stdoutColors();
  if (asFields && profiles[0] && run.mode === 'table') {
    run.print(renderFields(profileFields(profiles[0]), run.mode, colors));
  } else {
    run.print(
      await renderRows(profileColumns(run.mode), profiles, run.mode, colors, run.tableWidth),
    );
  }
}

/**
 * Warnings for what the environment (or --profile) changes behind the config's back: the
 * profile in use, its address, its key. `activeName` is the config's active profile.
 */
async function warnOverrides(run: Session, activeName: string): Promise<void> {
  const { env } = run.deps;
  const chosenBy =
    run.globals.profile !== undefined
      ? `--profile ${run.globals.profile}`
      : env.PETS_PROFILE
        ? `PETS_PROFILE=${env.PETS_PROFILE}`
        : undefined;
  const chosen = run.globals.profile ?? (env.PETS_PROFILE || undefined);
  if (chosenBy && chosen !== activeName) {
    await run.warn(
      `${chosenBy} overrides the active profile "${activeName}": commands use "${chosen}"` +
        (run.globals.profile === undefined ? ' until PETS_PROFILE is unset.' : '.'),
    );
  }
  if (env.PETS_BASE_URL) {
    await run.warn("PETS_BASE_URL is set and overrides every profile's base URL.");
  }
  if (env.PETS_API_KEY) await run.warn("PETS_API_KEY is set and overrides every profile's key.");
}

const builtIn = (name: string) => (BUILT_IN_PROFILES as readonly string[]).includes(name);

export function registerProfileCommands(program: Command, session: SessionSource): void {
  const profile = program
    .command('profile')
    .description('manage profiles: a base URL and a key per environment')
    .addHelpText(
      'before',
      examples(
        'pets profile set staging --base-url https://staging.example.com/v1',
        'pets profile use staging',
        'pets profile list',
      ),
    );

  profile
    .command('list')
    .description(
      'list profiles; * marks the one in use (--profile, PETS_PROFILE or the active one)',
    )
    .addHelpText('before', examples('pets profile list', 'pets profile list --json'))
    .action(async () => {
      const run = session();
      const { listProfiles } = await import('./profile.js');
      const config = await run.config();
      const view = { config, env: run.deps.env, profileFlag: run.globals.profile };
      await printProfiles(run, listProfiles(view), false);
      await warnOverrides(run, config.read().activeProfile);
    });

  profile
    .command('show')
    .description('show a profile as commands use it, and where each setting comes from')
    .addHelpText('before', examples('pets profile show', 'pets profile show staging --json'))
    .argument('[name]', 'profile name (default: the one in use)')
    .action(async (name: string | undefined) => {
      const run = session();
      const [{ showProfile }, { chooseProfile }] = await Promise.all([
        import('./profile.js'),
        import('../../config/resolve-target.js'),
      ]);
      const config = await run.config();
      const chosen = name ?? chooseProfile(config.read(), run.globals.profile, run.deps.env);
      const view = { config, env: run.deps.env, profileFlag: run.globals.profile };
      await printProfiles(run, [showProfile(chosen, view)], true);
      await warnOverrides(run, config.read().activeProfile);
    });

  profile
    .command('use')
    .description('make a profile the active one')
    .addHelpText('before', examples('pets profile use staging', 'pets --profile production list'))
    .argument('<name>', 'profile name')
    .action(async (name: string) => {
      const run = session();
      const { useProfile } = await import('./profile.js');
      const used = await useProfile(name, { config: await run.config() });
      run.notice(`Now using profile "${used.name}" (${used.baseUrl ?? 'no base URL yet'}).`);
      await warnOverrides(run, used.name);
    });

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
      const run = session();
      const { setProfile } = await import('./profile.js');
      const saved = await setProfile(name, options, { config: await run.config() });
      run.notice(
        `Saved profile "${saved.name}": ${saved.baseUrl ?? 'no base URL yet'}` +
          (saved.protected ? ' (protected)' : '') +
          '.',
      );
      if (saved.key === '(none)') run.notice(`Next: pets auth login --profile ${saved.name}`);
    });

  profile
    .command('remove')
    .description('remove a profile (production and staging are only cleared)')
    .addHelpText(
      'before',
      examples('pets profile remove dev', 'pets profile remove production --yes'),
    )
    .argument('<name>', 'profile name')
    .option('--yes', 'remove a protected profile without typing its name')
    .action(async (name: string, options: { yes?: boolean }) => {
      const run = session();
      const { removeProfile, savedProfile } = await import('./profile.js');
      const config = await run.config();
      const saved = savedProfile(name, { config });
      if (saved.protected) {
        await run.protectedBadge({ ...saved, profile: name });
        const where = saved.baseUrl ? ` (${new URL(saved.baseUrl).host})` : '';
        await confirmProtectedProfile(run, {
          profile: name,
          question: `${builtIn(name) ? 'Clear' : 'Remove'} protected profile "${name}"${where}?`,
          action: 'removing it',
          nothingDone: 'nothing was changed',
          yes: options.yes === true,
        });
      }
      const removed = await removeProfile(name, { config });
      run.notice(
        removed.cleared
          ? `Profile "${name}" always exists: its base URL and key were cleared.`
          : `Removed profile "${name}".`,
      );
      if (removed.nowActive) run.notice(`The active profile is now "${removed.nowActive}".`);
    });
}
