import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cmd/root.js';
import {
  actingGlobals,
  EVERYWHERE,
  GLOBAL_SCOPE,
  HELP,
} from '../../src/cmd/shared/global-scope.js';
import { JSON_COMMANDS } from '../../src/cmd/shared/json-output.js';
import { packageVersion } from '../../src/core/version.js';
import { createDeps } from '../../src/runtime/wiring.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { DEAD_PORT } from '../helpers/api-env.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { captureIo } from '../helpers/io.js';
import { noPerson } from '../helpers/prompter.js';
import { BIN, EXECUTABLE, runBinary } from '../helpers/run-binary.js';
import type { RunResult } from '../helpers/run-main.js';
import { hasScript, KEYS, onTerminal } from '../helpers/terminal.js';

// The flag matrix: every option in the commander tree, walked from the program main builds,
// either changes what its command does or is refused (exit 2, naming it). Each option has an
// entry in MATRIX below; an option added without one fails the first test, and an entry whose
// effect is not seen fails its own. An effect is seen by running the built binary twice, each
// run in a world of its own (a config folder, and a loopback server that records what it
// received): once with the flag and once with the same words but the flag, and `shows` must
// hold of the first run and not of the second.
//
// A global option is declared once, at the root, and probed on one command where it acts. Each
// command declares which globals act for it (src/cmd/shared/global-scope.ts); every other
// (global × command) pair is run here and must be refused (exit 2, naming both, nothing
// received), and a command or a global without a declaration fails the first tests. Help takes
// any global. An option given with its own negation (--protected --no-protected) is refused,
// for every such pair in the tree. Every command's --help is checked too: commander adds it,
// and it must answer.

// --- The commander tree -----------------------------------------------------------------

interface TreeOption {
  /** `list --limit`; a global option is just `--json`. */
  key: string;
  option: Option;
}

function programTree(): Command {
  const deps = createDeps({
    signal: new AbortController().signal,
    io: captureIo(),
    env: {},
    prompts: noPerson(),
  });
  return buildProgram(deps, {});
}

/** Every command's path (`profile set`) and every option, as the program declares them. */
function walk(program: Command): { commands: string[]; options: TreeOption[] } {
  const commands: string[] = [];
  const options: TreeOption[] = [];
  const visit = (command: Command, path: string) => {
    if (path) commands.push(path);
    for (const option of command.options) {
      const flag = option.long ?? option.short!;
      options.push({ key: path ? `${path} ${flag}` : flag, option });
    }
    for (const sub of command.commands) visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, '');
  return { commands, options };
}

const PROGRAM = programTree();
const TREE = walk(PROGRAM);
/** The global options, but --version (and --help, which commander keeps apart): each acts or is refused. */
const GLOBALS = PROGRAM.options.filter((option) => option.long !== '--version');

// --- Worlds: a config folder and a server that counts ---------------------------------------

interface Received {
  method: string;
  path: string;
  at: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: string;
}

type ServerKind =
  /** The sandbox, no rate limit. */
  | 'sandbox'
  /** The sandbox, each answer held 150 ms. */
  | 'slow'
  /** The sandbox, each answer held 1.5 s. */
  | 'slower'
  /** The sandbox, one request per 2 s window. */
  | 'limited'
  /** A server that records headers and bodies: 200 {"ok":true}, or 201 a pet for POST /pets. */
  | 'recorder'
  /** No server. */
  | 'none';

interface World {
  dir: string;
  env: Record<string, string>;
  baseUrl: string;
  key: string;
  /** What the server received since the world was made, or since `mark()`. */
  received(): Received[];
  mark(): void;
  pets(): Array<{ name: string; categoryId: bigint; status?: string }>;
  recorder?: FaultServer;
  /** A file in the world's folder, written when `content` is given. */
  file(name: string, content?: string): string;
  /** Values the preparation leaves for the command line (a free port). */
  vars: Record<string, string>;
}

const KEY = 'matrix_key_0123456789abcdef0123';

async function makeWorld(kind: ServerKind): Promise<{ world: World; close: () => Promise<void> }> {
  // Removed when the world closes: tempDir's hook is not the concurrent test's own.
  const dir = mkdtempSync(join(tmpdir(), 'pets-matrix-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const file = (name: string, content?: string) => {
    const path = join(dir, name);
    if (content !== undefined) writeFileSync(path, content);
    return path;
  };
  const configEnv = { PETS_CONFIG_DIR: join(dir, 'config') };
  if (kind === 'none') {
    const world: World = {
      dir,
      env: configEnv,
      baseUrl: '',
      key: '',
      received: () => [],
      mark: () => {},
      pets: () => [],
      file,
      vars: {},
    };
    return { world, close: async () => remove() };
  }
  if (kind === 'recorder') {
    const server = await startFaultServer();
    server.handle(recorderAnswer());
    let from = 0;
    const world: World = {
      dir,
      env: { ...configEnv, PETS_BASE_URL: server.baseUrl, PETS_API_KEY: KEY },
      baseUrl: server.baseUrl,
      key: KEY,
      received: () => server.requests.slice(from).map((one) => ({ ...one, path: one.url })),
      mark: () => (from = server.requests.length),
      pets: () => [],
      recorder: server,
      file,
      vars: {},
    };
    return { world, close: () => server.close().then(remove) };
  }
  const sandbox: RunningSandbox = await startSandbox(
    kind === 'limited'
      ? { plan: 'free', rpm: 1, windowSeconds: 2 }
      : {
          plan: 'unlimited',
          ...(kind === 'slow' ? { latencyMs: 150 } : kind === 'slower' ? { latencyMs: 1_500 } : {}),
        },
  );
  let from = 0;
  const world: World = {
    dir,
    env: { ...configEnv, PETS_BASE_URL: sandbox.baseUrl, PETS_API_KEY: sandbox.key },
    baseUrl: sandbox.baseUrl,
    key: sandbox.key,
    received: () => sandbox.requestLog.slice(from),
    mark: () => (from = sandbox.requestLog.length),
    pets: () => sandbox.pets(),
    file,
    vars: {},
  };
  return { world, close: () => sandbox.close().then(remove) };
}

/** 201 and the pet for a POST to /pets (ids from 1), else 200 {"ok":true}. */
function recorderAnswer(): Parameters<FaultServer['handle']>[0] {
  let id = 0;
  return (req, res) => {
    const pet = req.method === 'POST' && req.url.endsWith('/pets');
    res.writeHead(pet ? 201 : 200, { 'content-type': 'application/json' });
    res.end(pet ? JSON.stringify({ id: ++id, ...JSON.parse(req.body || '{}') }) : '{"ok":true}');
  };
}

/**
 * A free port below Linux's ephemeral range (32768–60999), so that a sandbox given no --port
 * (which binds port 0) can never be handed the same one by chance and pass for --port's act.
 */
async function freePortOutsideEphemeral(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}

// --- Runs ---------------------------------------------------------------------------------

interface Observed extends RunResult {
  received: Received[];
  pets: ReturnType<World['pets']>;
  /** The follow-up command's run, in the same world. */
  then?: RunResult;
  /** On a terminal: everything written to it, escapes and all. */
  raw?: string;
  /** `pets sandbox --json`: its first line, and what `after` found. */
  sandbox?: { info: Record<string, unknown>; found: unknown };
}

interface Probe {
  /** The command line with the flag. The run without it drops the flag (and its value). */
  args: string[] | ((world: World) => string[]);
  server?: ServerKind;
  env?: Record<string, string>;
  input?: string | ((world: World) => string);
  /** Runs in each world before the command, e.g. an earlier run; the server's count starts after it. */
  prepare?: (world: World) => Promise<void>;
  /** A command run after it in the same world, to see what it left. */
  then?: string[];
  /** Run on a terminal until it ends or shows this (then Ctrl-C). */
  terminal?: RegExp;
  /** `pets sandbox`: what to find out from the running sandbox before it is stopped. */
  sandbox?: (info: Record<string, unknown>, world: World) => Promise<unknown>;
  /** What the flag does: true of the run with it, false of the run without. */
  shows: (run: Observed, world: World) => boolean;
}

interface Refusal {
  args: string[];
  env?: Record<string, string>;
  /** What the error says: it names the flag, and what it needs. */
  says: string;
}

interface Expectation {
  acts?: Probe;
  refused?: Refusal;
}

/** `args` without the option `option` and its value, as the user would type the run without it. */
function withoutFlag(args: string[], option: Option): string[] {
  const names = [option.long, option.short].filter((name): name is string => Boolean(name));
  const at = args.findIndex(
    (arg) => names.includes(arg) || names.some((n) => arg.startsWith(`${n}=`)),
  );
  if (at < 0) throw new Error(`the probe of ${option.flags} does not give it: ${args.join(' ')}`);
  const takesValue = (option.required || option.optional) && !args[at]!.includes('=');
  return [...args.slice(0, at), ...args.slice(at + (takesValue ? 2 : 1))];
}

/** Runs `probe` in a world of its own; `shown` is what `probe.shows` says of the run. */
async function observe(
  probe: Probe,
  argsOf: (world: World) => string[],
): Promise<{ run: Observed; shown: boolean }> {
  const { world, close } = await makeWorld(probe.server ?? 'sandbox');
  try {
    await probe.prepare?.(world);
    world.mark();
    const env = { ...world.env, ...probe.env };
    const args = argsOf(world);
    const input = typeof probe.input === 'function' ? probe.input(world) : probe.input;
    let run: RunResult & { raw?: string; sandbox?: Observed['sandbox'] };
    if (probe.sandbox) run = await runSandbox(args, env, (info) => probe.sandbox!(info, world));
    else if (probe.terminal) run = await runOnTerminal(args, env, probe.terminal);
    else run = await runBinary(args, env, input);
    const observed: Observed = { ...run, received: world.received(), pets: world.pets() };
    if (probe.then) observed.then = await runBinary(probe.then, env);
    return { run: observed, shown: probe.shows(observed, world) };
  } finally {
    await close();
  }
}

/** On a terminal (util-linux script), until pets ends or shows `until`; then Ctrl-C. */
async function runOnTerminal(
  args: string[],
  env: Record<string, string>,
  until: RegExp,
): Promise<RunResult & { raw: string }> {
  const term = onTerminal(args, env);
  const ended = term.exited.then(() => 'ended' as const);
  const shown = term.waitFor(until).then(
    () => 'shown' as const,
    () => 'ended' as const,
  );
  // A run that shows `until` as its last words (a dry run's "sent") is about to end: a Ctrl-C
  // typed at once would race its exit and make it 130. It gets 3 s to end of itself.
  if ((await Promise.race([ended, shown])) === 'shown') {
    const settled = await Promise.race([ended, new Promise((wait) => setTimeout(wait, 3_000))]);
    if (settled !== 'ended') term.type(KEYS.ctrlC);
  }
  const code = (await term.exited) ?? -1;
  return { code, stdout: term.screen(), stderr: '', raw: term.raw() };
}

/** `pets sandbox --json …`: its first line, `after` asked of it while it runs, then SIGTERM. */
async function runSandbox(
  args: string[],
  env: Record<string, string>,
  after: (info: Record<string, unknown>) => Promise<unknown>,
): Promise<RunResult & { sandbox: Observed['sandbox'] }> {
  const [file, argv] = EXECUTABLE ? [EXECUTABLE, args] : [process.execPath, [BIN, ...args]];
  const child = spawn(file, argv, { env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  // Its first line on stdout says where it listens, and with what key.
  const firstLine = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
    });
    void done.then(() => reject(new Error(`the sandbox ended: ${stderr}`)));
  });
  const info = JSON.parse(firstLine) as Record<string, unknown>;
  let found: unknown;
  try {
    found = await after(info);
  } finally {
    child.kill('SIGTERM');
  }
  const code = await done;
  return { code, stdout, stderr, sandbox: { info, found } };
}

const posts = (run: Observed) => run.received.filter((one) => one.method === 'POST').length;
const parsed = (text: string | undefined): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(text ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
};
/** The shortest time between two POSTs' arrivals. */
const closestPosts = (run: Observed) => {
  const times = run.received.filter((one) => one.method === 'POST').map((one) => one.at);
  return Math.min(...times.slice(1).map((at, i) => at - times[i]!));
};
const records = (world: World, count = 1, name = 'pets.ndjson') =>
  world.file(
    name,
    Array.from({ length: count }, (_, i) => `{"name":"M${i}","categoryId":1}`).join('\n'),
  );
const staging = { PETS_PROFILE: 'staging' };
/** A probe on staging against the recorder, which keeps each request's headers and body. */
const onRecorder = (args: Probe['args'], shows: Probe['shows']): Expectation => ({
  acts: { args, server: 'recorder', env: staging, shows },
});
/** A probe of `pets sandbox --json`, read from the line it prints as it starts. */
const sandboxLine = (args: string[], shows: Probe['shows']): Expectation => ({
  acts: { args, server: 'none', sandbox: async () => undefined, shows },
});
/** The one-pet add, in a dry run: it sends nothing. */
const dryAdd = ['add', '--name', 'D', '--category-id', '1', '--dry-run'];
const onlyWithFile = (flag: string, value: string[] = []): Refusal => ({
  args: ['add', '--name', 'X', '--category-id', '1', flag, ...value],
  env: staging,
  says: `${flag} only applies with --file`,
});
async function sandboxGet(info: Record<string, unknown>, path: string): Promise<unknown> {
  const answer = await fetch(`${info.baseUrl as string}${path}`, {
    headers: { authorization: `Bearer ${info.key as string}` },
  });
  return answer.json();
}
async function sandboxAdd(info: Record<string, unknown>): Promise<string> {
  const answer = await fetch(`${info.baseUrl as string}/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${info.key as string}`, 'content-type': 'application/json' },
    body: '{"name":"Sb","categoryId":1}',
  });
  return answer.text();
}

// --- The matrix: each option, and how its effect is seen ------------------------------------

const MATRIX: Record<string, Expectation> = {
  '--version': {
    acts: {
      args: ['--version'],
      server: 'none',
      shows: (r) => r.stdout === `${packageVersion()}\n`,
    },
  },
  '--profile': {
    acts: {
      args: ['--profile', 'staging', ...dryAdd],
      shows: (r) => r.stdout.includes('profile\tstaging\n'),
    },
  },
  '--json': { acts: { args: ['list', '--json'], shows: (r) => r.stdout === '[]\n' } },
  '--jq': { acts: { args: ['list', '--jq', 'length'], shows: (r) => r.stdout === '0\n' } },
  '--no-color': {
    // Colour is for a terminal: the badge of production is red there, and plain with it.
    acts: {
      args: ['--no-color', ...dryAdd],
      terminal: /sent/,
      shows: (r) => r.code === 0 && r.raw!.includes('PROTECTED') && !/\u001b\[[\d;]*m/.test(r.raw!),
    },
  },
  '--quiet': {
    // A batch's summary goes (a protected profile's badge stays: issue 42).
    acts: {
      args: (w) => ['-q', 'add', '--file', records(w)],
      env: staging,
      shows: (r) => r.code === 0 && posts(r) === 1 && !r.stderr.includes('created 1'),
    },
  },
  '--timeout': {
    // Each answer comes after 1.5 s: 0.3 s is too long to wait, the default 30 s is not.
    acts: {
      args: ['--timeout', '0.3', 'list'],
      server: 'slower',
      shows: (r) => r.code !== 0 && /timed out|timeout/i.test(r.stderr),
    },
  },
  '--max-wait': {
    // One request per 2 s window, used by the run before: waiting 0 s stops (exit 5).
    acts: {
      args: ['--max-wait', '0', 'list'],
      server: 'limited',
      prepare: async (w) => void (await runBinary(['list'], w.env)),
      shows: (r) => r.code === 5 && r.received.length === 0,
    },
  },
  '--debug': { acts: { args: ['list', '--debug'], shows: (r) => /^> GET /m.test(r.stderr) } },
  '--no-input': {
    // At a terminal add asks for the name; with --no-input it says what is missing instead.
    acts: {
      args: ['--no-input', 'add'],
      env: staging,
      terminal: /Name/,
      shows: (r) => r.code === 2 && r.stdout.includes('add is missing --name'),
    },
  },

  'list --limit': {
    acts: {
      args: ['list', '--limit', '7'],
      shows: (r) => r.received[0]?.path === '/v1/pets?limit=7',
    },
  },
  'list --status': {
    acts: {
      args: ['list', '--status', 'sold'],
      shows: (r) => r.received[0]?.path.includes('status=sold') ?? false,
    },
  },

  'add --name': {
    acts: {
      args: ['add', '--name', 'Rex', '--category-id', '1'],
      env: staging,
      shows: (r) => r.pets.some((pet) => pet.name === 'Rex'),
    },
  },
  'add --category-id': {
    acts: {
      args: ['add', '--name', 'C', '--category-id', '77'],
      env: staging,
      shows: (r) => r.pets.some((pet) => String(pet.categoryId) === '77'),
    },
  },
  'add --status': {
    acts: {
      args: ['add', '--name', 'S', '--category-id', '1', '--status', 'sold'],
      env: staging,
      shows: (r) => r.pets.some((pet) => pet.status === 'sold'),
    },
  },
  'add --file': {
    acts: {
      args: (w) => ['add', '--file', records(w, 2)],
      env: staging,
      shows: (r) => posts(r) === 2,
    },
  },
  'add --format': {
    // CSV in a file named .json: read as JSON it fails; --format csv reads it.
    acts: {
      args: (w) => [
        'add',
        '--file',
        w.file('pets.json', 'name,categoryId\nF,1\n'),
        '--format',
        'csv',
      ],
      env: staging,
      shows: (r) => r.code === 0 && r.pets.some((pet) => pet.name === 'F'),
    },
    refused: onlyWithFile('--format', ['csv']),
  },
  'add --concurrency': {
    // Each answer held 150 ms: one at a time, no two creates arrive closer than that.
    acts: {
      args: (w) => ['add', '--file', records(w, 4), '--concurrency', '1'],
      server: 'slow',
      env: staging,
      shows: (r) => posts(r) === 4 && closestPosts(r) >= 140,
    },
    refused: onlyWithFile('--concurrency', ['2']),
  },
  'add --journal': {
    acts: {
      args: (w) => ['add', '--file', records(w), '--journal', join(w.dir, 'given.j')],
      env: staging,
      shows: (r, w) => r.code === 0 && existsSync(join(w.dir, 'given.j')),
    },
    refused: onlyWithFile('--journal', ['x.j']),
  },
  'add --retry-unknown': {
    // The run before lost its connection after its create arrived: the outcome is unknown,
    // held back, and sent again only with --retry-unknown.
    acts: {
      args: (w) => ['add', '--file', records(w), '--journal', join(w.dir, 'j'), '--retry-unknown'],
      server: 'recorder',
      env: staging,
      prepare: async (w) => {
        w.recorder!.handle((_req, _res, socket) => socket.destroy());
        const first = await runBinary(
          ['add', '--file', records(w), '--journal', join(w.dir, 'j')],
          { ...w.env, ...staging },
        );
        expect(first.stderr).toContain('unknown 1');
        w.recorder!.handle(recorderAnswer());
      },
      shows: (r) => r.code === 0 && posts(r) === 1,
    },
    refused: onlyWithFile('--retry-unknown'),
  },
  'add --new-run': {
    // The same records, already created through another journal: refused, or sent again.
    acts: {
      args: (w) => ['add', '--file', records(w), '--journal', join(w.dir, 'second.j'), '--new-run'],
      env: staging,
      prepare: async (w) => {
        const first = await runBinary(
          ['add', '--file', records(w), '--journal', join(w.dir, 'first.j')],
          { ...w.env, ...staging },
        );
        expect(first.code).toBe(0);
      },
      shows: (r) => r.code === 0 && posts(r) === 1,
    },
    refused: onlyWithFile('--new-run'),
  },
  'add --ignore-unknown': {
    // A key no pet has is refused (exit 2, nothing sent), or left out with the flag (issue 42).
    acts: {
      args: (w) => [
        'add',
        '--file',
        w.file('odd.ndjson', '{"name":"U","categoryId":1,"colour":"red"}'),
        '--ignore-unknown',
      ],
      env: staging,
      shows: (r) => r.code === 0 && posts(r) === 1,
    },
    refused: onlyWithFile('--ignore-unknown'),
  },
  'add --yes': {
    // Production is protected: in a pipe a batch needs --yes.
    acts: { args: (w) => ['add', '--file', records(w), '--yes'], shows: (r) => posts(r) === 1 },
    refused: onlyWithFile('--yes'),
  },
  'add --dry-run': {
    acts: {
      args: ['add', '--name', 'D', '--category-id', '1', '--dry-run'],
      env: staging,
      shows: (r) => r.code === 0 && posts(r) === 0,
    },
  },

  'api --method': onRecorder(
    ['api', '-X', 'DELETE', '/pets/1'],
    (r) => r.received[0]?.method === 'DELETE',
  ),
  'api --raw-field': onRecorder(
    ['api', '/pets', '-f', 'name=Rex'],
    (r) => r.received[0]?.method === 'POST' && r.received[0].body === '{"name":"Rex"}',
  ),
  'api --field': onRecorder(
    ['api', '/pets', '-F', 'categoryId=3'],
    (r) => r.received[0]?.body === '{"categoryId":3}',
  ),
  'api --header': onRecorder(
    ['api', '/pets', '-H', 'X-Probe: 42'],
    (r) => r.received[0]?.headers?.['x-probe'] === '42',
  ),
  'api --input': onRecorder(
    (w) => ['api', '/pets', '--input', w.file('body.json', '{"name":"In"}')],
    (r) => r.received[0]?.method === 'POST' && r.received[0].body === '{"name":"In"}',
  ),
  'api --include': onRecorder(['api', '/pets', '-i'], (r) =>
    r.stdout.startsWith('HTTP/1.1 200 OK\r\n'),
  ),
  'api --yes': {
    // Production is protected: in a pipe a write needs --yes. A read has nothing to confirm.
    acts: {
      args: ['api', '/pets', '-f', 'name=Y', '--yes'],
      server: 'recorder',
      shows: (r) => r.code === 0 && r.received[0]?.method === 'POST',
    },
    refused: { args: ['api', '/pets', '--yes'], says: '--yes only applies to a write' },
  },

  'profile set --base-url': {
    acts: {
      args: ['profile', 'set', 'dev', '--base-url', 'http://127.0.0.1:9/v1'],
      server: 'none',
      then: ['profile', 'show', 'dev', '--json'],
      shows: (r) => parsed(r.then?.stdout)?.baseUrl === 'http://127.0.0.1:9/v1',
    },
  },
  'profile set --protected': {
    acts: {
      args: ['profile', 'set', 'dev', '--base-url', 'http://127.0.0.1:9/v1', '--protected'],
      server: 'none',
      then: ['profile', 'show', 'dev', '--json'],
      shows: (r) => parsed(r.then?.stdout)?.protected === true,
    },
  },
  'profile set --no-protected': {
    acts: {
      args: ['profile', 'set', 'production', '--no-protected'],
      server: 'none',
      then: ['profile', 'show', 'production', '--json'],
      shows: (r) => parsed(r.then?.stdout)?.protected === false,
    },
  },
  'profile set --rate-store': {
    // A rate store nobody listens on: the next request stops before it is sent.
    acts: {
      args: (w) => [
        'profile',
        'set',
        'staging',
        '--rate-store',
        `redis://127.0.0.1:${w.vars.port}/0`,
      ],
      env: staging,
      prepare: async (w) => void (w.vars.port = String(DEAD_PORT)),
      then: ['list'],
      shows: (r) => r.then?.code !== 0 && (r.then?.stderr.includes('rate store') ?? false),
    },
  },
  'profile set --no-rate-store': {
    acts: {
      args: ['profile', 'set', 'staging', '--no-rate-store'],
      env: staging,
      prepare: async (w) => {
        const set = await runBinary(
          ['profile', 'set', 'staging', '--rate-store', `redis://127.0.0.1:${DEAD_PORT}/0`],
          w.env,
        );
        expect(set.code).toBe(0);
      },
      then: ['list'],
      shows: (r) => r.code === 0 && r.then?.code === 0,
    },
  },
  'profile remove --yes': {
    // Production is protected: in a pipe, clearing it needs --yes.
    acts: {
      args: ['profile', 'remove', 'production', '--yes'],
      server: 'none',
      prepare: async (w) =>
        void (await runBinary(
          ['profile', 'set', 'production', '--base-url', 'http://127.0.0.1:9/v1'],
          w.env,
        )),
      then: ['profile', 'show', 'production', '--json'],
      shows: (r) => r.code === 0 && parsed(r.then?.stdout)?.baseUrl === null,
    },
  },
  'auth login --with-key': {
    // In a pipe the key can only come from stdin, and only with --with-key.
    acts: {
      args: ['auth', 'login', '--with-key'],
      env: staging,
      input: (w) => `${w.key}\n`,
      shows: (r) => r.code === 0 && r.stderr.includes('Saved the key'),
    },
  },

  'sandbox --host': sandboxLine(['sandbox', '--json', '--host', 'localhost'], (r) =>
    String(r.sandbox?.info.baseUrl).startsWith('http://localhost:'),
  ),
  'sandbox --port': {
    acts: {
      args: (w) => ['sandbox', '--json', '--port', w.vars.port!],
      server: 'none',
      prepare: async (w) => void (w.vars.port = String(await freePortOutsideEphemeral())),
      sandbox: async () => undefined,
      shows: (r, w) => String(r.sandbox?.info.baseUrl).endsWith(`:${w.vars.port}/v1`),
    },
  },
  'sandbox --plan': sandboxLine(
    ['sandbox', '--json', '--plan', 'pro'],
    (r) => r.sandbox?.info.plan === 'pro',
  ),
  'sandbox --rpm': sandboxLine(
    ['sandbox', '--json', '--rpm', '7'],
    (r) => r.sandbox?.info.rpm === 7,
  ),
  'sandbox --rpd': sandboxLine(
    ['sandbox', '--json', '--rpd', '9'],
    (r) => r.sandbox?.info.rpd === 9,
  ),
  'sandbox --seed': {
    acts: {
      args: ['sandbox', '--json', '--seed', '3'],
      server: 'none',
      sandbox: (info) => sandboxGet(info, '/pets?limit=100'),
      shows: (r) => (r.sandbox?.found as unknown[]).length === 3,
    },
  },
  'sandbox --first-id': {
    acts: {
      args: ['sandbox', '--json', '--first-id', '9007199254740993'],
      server: 'none',
      sandbox: sandboxAdd,
      shows: (r) => String(r.sandbox?.found).includes('"id":9007199254740993'),
    },
  },
  'sandbox --data': {
    acts: {
      args: (w) => ['sandbox', '--json', '--data', join(w.dir, 'store.json')],
      server: 'none',
      sandbox: sandboxAdd,
      shows: (_r, w) => existsSync(join(w.dir, 'store.json')),
    },
  },
  'sandbox --key': sandboxLine(
    ['sandbox', '--json', '--key', KEY],
    (r) => r.sandbox?.info.key === KEY,
  ),
  'sandbox --save-profile': sandboxLine(
    ['sandbox', '--json', '--save-profile', 'mine'],
    (r) => r.sandbox?.info.profile === 'mine',
  ),
  'sandbox --no-save-profile': sandboxLine(
    ['sandbox', '--json', '--no-save-profile'],
    (r) => r.sandbox?.info.profile === null,
  ),
};

// --- Global options where they do not act ---------------------------------------------------

/** A value for each global that takes one. */
const GLOBAL_VALUES: Record<string, string[]> = {
  '--profile': ['staging'],
  '--jq': ['.'],
  '--timeout': ['5'],
  '--max-wait': ['5'],
};

/**
 * What each command needs after its name to get past commander's own checks (a missing argument
 * is refused before any action, with another message): a command added without its words here
 * and needing some fails its refusals, saying so.
 */
const COMMAND_ARGS: Record<string, string[]> = {
  add: ['--name', 'X', '--category-id', '1'],
  api: ['/pets'],
  get: ['1'],
  'profile use': ['staging'],
  'profile set': ['dev'],
  'profile remove': ['dev'],
  'auth login': ['--with-key'],
  completion: ['bash'],
  __complete: ['--', 'li'],
};

/** A valid value for an option whose negation is given with it. */
const NEGATION_VALUES: Record<string, string> = {
  'profile set --rate-store': 'redis://127.0.0.1:1/0',
};

// --- The tests ----------------------------------------------------------------------------

describe('the flag matrix', () => {
  it('has an entry for every option in the commander tree, and none for an option not in it', () => {
    const inTree = TREE.options.map((one) => one.key).sort();
    expect(Object.keys(MATRIX).sort()).toEqual(inTree);
    for (const key of inTree) {
      const entry = MATRIX[key]!;
      expect(entry.acts ?? entry.refused, `${key}: neither an effect nor a refusal`).toBeDefined();
    }
  });

  describe.concurrent('each option changes what its command does', { timeout: 60_000 }, () => {
    const acting = TREE.options.filter((one) => MATRIX[one.key]?.acts);
    it.for(acting)('$key', async ({ key, option }, context) => {
      const probe = MATRIX[key]!.acts!;
      // Colour and questions are for a terminal: without util-linux script, not seen here.
      if (probe.terminal && !hasScript) return context.skip();
      const argsOf = (world: World) =>
        typeof probe.args === 'function' ? probe.args(world) : probe.args;
      const [given, left] = await Promise.all([
        observe(probe, argsOf),
        observe(probe, (world) => withoutFlag(argsOf(world), option)),
      ]);
      const tell = ({ run }: { run: Observed }) =>
        `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}\nthen: ${JSON.stringify(run.then)}`;
      expect(given.shown, `with ${key}:\n${tell(given)}`).toBe(true);
      expect(left.shown, `without ${key}:\n${tell(left)}`).toBe(false);
    });
  });

  describe.concurrent(
    'each option that needs another is refused without it',
    { timeout: 60_000 },
    () => {
      const refused = TREE.options.filter((one) => MATRIX[one.key]?.refused);
      it.each(refused)('$key', async ({ key, option }) => {
        const refusal = MATRIX[key]!.refused!;
        const [{ run: given }, { run: left }] = await Promise.all([
          observe({ args: refusal.args, env: refusal.env, shows: () => true }, () => refusal.args),
          observe({ args: refusal.args, env: refusal.env, shows: () => true }, () =>
            withoutFlag(refusal.args, option),
          ),
        ]);
        expect(given.code).toBe(2);
        expect(given.stderr).toContain(refusal.says);
        expect(given.stderr).toContain('nothing was sent');
        expect(given.received).toEqual([]);
        expect(left.code, `without ${key}: ${left.stderr}`).not.toBe(2);
      });
    },
  );

  describe.concurrent('every command takes --help', { timeout: 60_000 }, () => {
    // __complete is the shells' hidden helper: what follows it are the words to complete.
    const shown = TREE.commands.filter((path) => !path.startsWith('__'));
    it.each(shown)('pets %s --help', async (path) => {
      const dir = mkdtempSync(join(tmpdir(), 'pets-matrix-'));
      try {
        const result = await runBinary([...path.split(' '), '--help'], {
          PETS_CONFIG_DIR: join(dir, 'config'),
        });
        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(new RegExp(`^Usage: pets ${path} `));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
  describe('global options, command by command', () => {
    it('has a declaration for every command, and names only commands and globals that exist', () => {
      expect(Object.keys(GLOBAL_SCOPE).sort()).toEqual([...TREE.commands].sort());
      const flags = GLOBALS.map((option) => option.long);
      for (const [command, acting] of Object.entries(GLOBAL_SCOPE)) {
        if (acting === HELP) continue;
        for (const flag of acting) expect(flags, `${command}: ${flag}`).toContain(flag);
      }
      for (const flag of EVERYWHERE) expect(flags).toContain(flag);
    });

    it('declares every global to act somewhere', () => {
      for (const option of GLOBALS) {
        const somewhere = TREE.commands.some((command) => {
          const acting = actingGlobals(command);
          return acting !== HELP && acting.includes(option.long!);
        });
        expect(somewhere, `${option.long} acts on no command`).toBe(true);
      }
    });

    it('lets --jq act exactly on the commands with JSON output', () => {
      const withJq = TREE.commands.filter((command) => {
        const acting = actingGlobals(command);
        return acting !== HELP && acting.includes('--jq');
      });
      expect(withJq.sort()).toEqual([...JSON_COMMANDS].sort());
    });

    describe.concurrent('each global is refused where it does not act', { timeout: 60_000 }, () => {
      const pairs = TREE.commands.flatMap((command) => {
        const acting = actingGlobals(command);
        if (acting === HELP) return [];
        return GLOBALS.filter((option) => !acting.includes(option.long!)).map((option) => ({
          key: `${option.long} ${command}`,
          flag: option.long!,
          command,
        }));
      });
      it.each(pairs)('$key', async ({ flag, command }) => {
        const args = [flag, ...(GLOBAL_VALUES[flag] ?? []), ...command.split(' ')];
        const { run } = await observe({ args, server: 'recorder', shows: () => true }, () => [
          ...args,
          ...(COMMAND_ARGS[command] ?? []),
        ]);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain(`${flag} does not apply to pets ${command}`);
        expect(run.stderr).toContain('nothing was sent');
        expect(run.received).toEqual([]);
      });
    });

    describe.concurrent('help takes every global at once', { timeout: 60_000 }, () => {
      const helps = TREE.commands.filter((command) => actingGlobals(command) === HELP);
      it.each(helps)('pets … %s', async (command) => {
        const globals = GLOBALS.flatMap((option) => [
          option.long!,
          ...(GLOBAL_VALUES[option.long!] ?? []),
        ]);
        const args = [...globals, ...command.split(' ')];
        const { run } = await observe({ args, server: 'recorder', shows: () => true }, () => args);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toContain('Usage: pets');
        expect(run.received).toEqual([]);
      });
    });
  });

  describe.concurrent(
    'an option given with its own negation is refused, in either order',
    { timeout: 60_000 },
    () => {
      const pairs = TREE.options.flatMap(({ key, option }) => {
        if (!option.negate) return [];
        const command = key.slice(0, key.lastIndexOf(' '));
        const owner = TREE.options.find(
          (other) =>
            other.key.startsWith(`${command} `) &&
            other.option !== option &&
            other.option.attributeName() === option.attributeName(),
        );
        if (!owner) return [];
        const positive = [owner.option.long!, ...(owner.option.required ? ['x'] : [])];
        const value = NEGATION_VALUES[owner.key];
        if (value) positive[1] = value;
        const [yes, no] = [owner.option.long!, option.long!];
        return [
          {
            key: `${command} ${yes} ${no}`,
            command,
            flags: [...positive, no],
            said: `${yes} and ${no}`,
          },
          {
            key: `${command} ${no} ${yes}`,
            command,
            flags: [no, ...positive],
            said: `${no} and ${yes}`,
          },
        ];
      });
      it('finds the pairs the tree has', () => {
        expect(pairs.map((one) => one.key)).toEqual(
          expect.arrayContaining([
            'profile set --protected --no-protected',
            'profile set --rate-store --no-rate-store',
            'sandbox --save-profile --no-save-profile',
          ]),
        );
      });
      it.each(pairs)('$key', async ({ command, flags, said }) => {
        const args = [...command.split(' '), ...(COMMAND_ARGS[command] ?? []), ...flags];
        const { run } = await observe({ args, server: 'recorder', shows: () => true }, () => args);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain(`${said} contradict each other`);
        expect(run.stderr).toContain('nothing was sent or saved');
        expect(run.received).toEqual([]);
      });
    },
  );
});
