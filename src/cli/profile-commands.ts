import type { Command } from 'commander';
import type { ProfileSummary } from '../commands/profile.js';
import type { Column } from '../output/render.js';
import { examples, type SessionSource } from './program.js';
import type { Session } from './session.js';

const PROFILE_COLUMNS: readonly Column<ProfileSummary>[] = [
  {
    title: 'ACTIVE',
    text: (p) => (p.active ? '*' : ''),
    color: (_p, text, colors) => colors.green(text),
  },
  { title: 'NAME', text: (p) => p.name },
  { title: 'BASE URL', text: (p) => p.baseUrl ?? '(not set)' },
  { title: 'KEY', text: (p) => p.key },
  { title: 'PROTECTED', text: (p) => (p.protected ? 'yes' : '') },
];

async function printProfiles(run: Session, profiles: ProfileSummary[], asFields: boolean) {
  if (run.mode === 'json') return run.printJson(asFields ? profiles[0] : profiles);
  const { renderRows, renderFields } = await import('../output/render.js');
  if (asFields && profiles[0] && run.mode === 'table') {
    const p = profiles[0];
    run.print(
      renderFields(
        [
          ['name', p.name],
          ['active', p.active ? 'yes' : 'no'],
          ['base url', p.baseUrl ?? '(not set)'],
          ['key', p.key],
          ['protected', p.protected ? 'yes' : 'no'],
        ],
        run.mode,
        await run.stdoutColors(),
      ),
    );
  } else {
    run.print(await renderRows(PROFILE_COLUMNS, profiles, run.mode, await run.stdoutColors()));
  }
}

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
    .description('list profiles; * marks the active one')
    .addHelpText('before', examples('pets profile list', 'pets profile list --json'))
    .action(async () => {
      const run = session();
      const { listProfiles } = await import('../commands/profile.js');
      await printProfiles(run, listProfiles({ config: await run.config() }), false);
    });

  profile
    .command('show')
    .description('show a profile (default: the one in use)')
    .addHelpText('before', examples('pets profile show', 'pets profile show staging --json'))
    .argument('[name]', 'profile name')
    .action(async (name: string | undefined) => {
      const run = session();
      const [{ showProfile }, { chooseProfile }] = await Promise.all([
        import('../commands/profile.js'),
        import('../config/resolve-target.js'),
      ]);
      const config = await run.config();
      const chosen = name ?? chooseProfile(config.read(), run.globals.profile, run.deps.env);
      await printProfiles(run, [showProfile(chosen, { config })], true);
    });

  profile
    .command('use')
    .description('make a profile the active one')
    .addHelpText('before', examples('pets profile use staging', 'pets --profile production list'))
    .argument('<name>', 'profile name')
    .action(async (name: string) => {
      const run = session();
      const { useProfile } = await import('../commands/profile.js');
      const used = await useProfile(name, { config: await run.config() });
      run.notice(`Now using profile "${used.name}" (${used.baseUrl ?? 'no base URL yet'}).`);
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
      const { setProfile } = await import('../commands/profile.js');
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
    .addHelpText('before', examples('pets profile remove dev', 'pets profile remove staging'))
    .argument('<name>', 'profile name')
    .action(async (name: string) => {
      const run = session();
      const { removeProfile } = await import('../commands/profile.js');
      const removed = await removeProfile(name, { config: await run.config() });
      run.notice(
        removed.cleared
          ? `Profile "${name}" always exists: its base URL and key were cleared.`
          : `Removed profile "${name}".`,
      );
      if (removed.nowActive) run.notice(`The active profile is now "${removed.nowActive}".`);
    });
}
