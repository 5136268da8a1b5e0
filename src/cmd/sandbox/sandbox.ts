import { PLAN_NAMES, type PlanName } from '../../sandbox/plans.js';
import { codeOf, UsageError } from '../../core/errors.js';
import { keyProblem } from '../../config/key-check.js';
import { escapeForTerminal } from '../../core/terminal-text.js';
import type { RunningSandbox, SandboxAnswer } from '../../sandbox/index.js';
import {
  choiceOption,
  parseChoice,
  parseCount,
  parseId,
  parsePort,
  parsePositiveInteger,
} from '../shared/arguments.js';
import { examples } from '../shared/help-text.js';
import type { CommandModule } from '../shared/command.js';
import type { Session } from '../shared/session.js';
import type { SavedProfile } from './save-profile.js';

const parsePlan = (text: string) => parseChoice(PLAN_NAMES, text);

/** A failure to listen that the user can fix with --host or --port, said as such (exit 2). */
function listenProblem(error: unknown, flags: { host: string; port: number }): Error | undefined {
  const code = codeOf((error as Error | undefined)?.cause);
  const hint = 'Choose another with --port, or leave --port out for a free one.';
  if (code === 'EADDRINUSE') return new UsageError(`port ${flags.port} is in use`, { hint });
  if (code === 'EACCES') {
    return new UsageError(`port ${flags.port} needs privileges this user does not have`, {
      hint,
    });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new UsageError(`${flags.host} is not an address of this machine`, {
      hint: 'Leave --host out to listen on 127.0.0.1.',
    });
  }
  return undefined;
}

/** Writes each answer as `12:00:01 GET /v1/pets?limit=5 200 remaining 59`, dimmed. */
async function requestLogger(session: Session): Promise<(answer: SandboxAnswer) => void> {
  const colors = await session.terminal.stderrColors();
  return ({ method, path, status, remaining }) => {
    const time = new Date(session.clock.now()).toTimeString().slice(0, 8);
    const color =
      status >= 500 || status === 429 ? colors.red : status >= 400 ? colors.yellow : colors.green;
    session.terminal.stderr.write(
      'trace',
      { code: 'sandbox_request', message: `${time} ${method} ${path} ${status}` },
      `${colors.dim(time)} ${escapeForTerminal(`${method} ${path}`)} ${color(String(status))}` +
        colors.dim(remaining === null ? '' : ` remaining ${remaining}`),
    );
  };
}

interface SandboxFlags {
  host: string;
  port: number;
  plan: PlanName;
  rpm?: number;
  rpd?: number;
  seed: number;
  firstId?: bigint;
  data?: string;
  key?: string;
  saveProfile: string | false;
}

/** Starts the server, a failure to listen said as the flag to change. */
async function start(flags: SandboxFlags, session: Session): Promise<RunningSandbox> {
  const { startSandbox } = await import('../../sandbox/index.js');
  // One line per request for a person watching; none in a pipe, with --quiet or --json.
  const log =
    session.terminal.showsProgress && session.terminal.mode !== 'json'
      ? await requestLogger(session)
      : undefined;
  return startSandbox({
    host: flags.host,
    port: flags.port,
    plan: flags.plan,
    rpm: flags.rpm,
    rpd: flags.rpd,
    seed: flags.seed,
    firstId: flags.firstId,
    dataFile: flags.data,
    key: flags.key,
    onAnswer: log,
  }).catch((error: unknown) => {
    throw listenProblem(error, flags) ?? error;
  });
}

/** Where the sandbox listens, its key and limits, and where its profile went. */
async function announce(
  session: Session,
  sandbox: RunningSandbox,
  saved: SavedProfile | undefined,
  wanted: string,
): Promise<void> {
  const json = session.terminal.mode === 'json';
  if (json) {
    const { renderJson } = await import('../../output/render-json.js');
    const { baseUrl, key, plan, rpm, rpd } = sandbox;
    const profile = saved?.name ?? null;
    session.terminal.printJsonText(renderJson({ baseUrl, key, plan, rpm, rpd, profile }, false));
  } else {
    const limits = (n: number | null, per: string) =>
      n === null ? `unlimited/${per}` : `${n}/${per}`;
    session.terminal.print(
      `Sandbox API at ${sandbox.baseUrl} (plan ${sandbox.plan}: ` +
        `${limits(sandbox.rpm, 'min')}, ${limits(sandbox.rpd, 'day')})\n` +
        `Key: ${sandbox.key}\n`,
    );
  }
  // The JSON line names the profile: a notice follows it only where it went under another name.
  if (saved && (!json || saved.inUseBy !== undefined)) {
    const { announceProfile } = await import('./save-profile.js');
    announceProfile(session, saved, wanted);
  }
  if (!json) session.terminal.notice('Press Ctrl-C to stop.');
}

async function runSandbox(flags: SandboxFlags, session: Session): Promise<void> {
  // The key is saved as a profile's: one every other command would refuse is refused here.
  const problem = flags.key === undefined ? undefined : keyProblem(flags.key);
  if (problem) throw new UsageError(`--key ${problem}; the sandbox did not start`);
  const sandbox = await start(flags, session);
  try {
    const wanted = flags.saveProfile === false ? '' : flags.saveProfile;
    const { saveSandboxProfile } = await import('./save-profile.js');
    const saved = wanted === '' ? undefined : await saveSandboxProfile(session, wanted, sandbox);
    await announce(session, sandbox, saved, wanted);
    await new Promise((resolve) =>
      session.signal.addEventListener('abort', resolve, { once: true }),
    );
  } finally {
    await sandbox.close();
  }
  const answered = sandbox.requestLog.length;
  if (session.terminal.mode !== 'json') {
    session.terminal.notice(
      `Sandbox stopped after ${answered} request${answered === 1 ? '' : 's'}.`,
    );
  }
}

export const sandboxCommand: CommandModule = {
  define(program, getSession) {
    program
      .command('sandbox')
      .description('run a local server of the API v1, with keys, plans and rate limits')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 0)
      .addOption(
        choiceOption('--plan <plan>', 'rate-limit plan', PLAN_NAMES, parsePlan).default('free'),
      )
      .option('--rpm <n>', 'requests per minute, overriding the plan', parsePositiveInteger)
      .option('--rpd <n>', 'requests per day, overriding the plan', parsePositiveInteger)
      .option('--seed <n>', 'start with n sample pets when the store is empty', parseCount, 0)
      .option('--first-id <int64>', 'the first id to assign (try 9007199254740993)', parseId)
      .option('--data <file>', 'keep the pets in this JSON file across restarts')
      .option('--key <key>', 'the API key to accept (default: a new random key)')
      .option(
        '--save-profile <name>',
        'save the base URL and key as this profile (name-2, … while another sandbox or a server uses it)',
        'sandbox',
      )
      .option('--no-save-profile', 'do not save a profile')
      .addHelpText(
        'before',
        examples(
          'pets sandbox --seed 10',
          'pets sandbox --plan pro --port 8080 --data pets.json',
          'pets --profile sandbox list',
        ),
      )
      .addHelpText(
        'after',
        '\nPlans: free (60 per minute, 1,000 per day), pro (300, 10,000), business (1,000,\n' +
          "100,000), unlimited. A key that sends 5 requests during a 429's wait is banned\n" +
          'for ten minutes. The sandbox prints its address and key and saves them as a\n' +
          'profile (--save-profile), leaving the active one as it is; Ctrl-C stops it.\n' +
          'It takes an empty profile, or one whose sandbox has stopped; else name-2, …:\n' +
          "while a sandbox runs there, or it is a server's (protected, or not plain http\n" +
          'to this machine), which is sent nothing.\n',
      )
      .action((flags: SandboxFlags) => runSandbox(flags, getSession()));
  },
};
