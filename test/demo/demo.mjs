// `npm run demo`: starts the embedded sandbox on a free port, drives the built pets CLI
// against it the way a user would, and stops the sandbox. Then a rate-limited import against
// a second sandbox whose window lasts 2 s: the plan, the waits, a Ctrl-C and the resume, in
// seconds. The config lives in a temporary folder, so the user's own profiles are never touched.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const bin = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'pets-demo-'));
const env = {
  ...process.env,
  PETS_CONFIG_DIR: join(home, 'config'),
  XDG_CACHE_HOME: join(home, 'cache'),
};
for (const name of ['PETS_API_KEY', 'PETS_BASE_URL', 'PETS_PROFILE', 'CI']) delete env[name];
// In the shell lines below, `pets` is this checkout's CLI.
const petsFunction = `pets() { "${process.execPath}" "${bin}" "$@"; }`;
// `script` gives pets a terminal of its own, so that its progress line and countdown show, and
// so that Ctrl-C can be typed into it. Without `script`, pets runs in a pipe and says less.
const hasScript = spawnSync('script', ['--version']).status === 0;

function show(title) {
  process.stdout.write(`\n# ${title}\n`);
}

// Runs a shell line; its output goes straight to the user's terminal (tables) or pipe (TSV),
// as it would outside the demo. Not spawnSync: the second sandbox runs in this process.
async function pets(line) {
  process.stdout.write(`$ ${line}\n`);
  const child = spawn('sh', ['-c', `${petsFunction}\n${line}`], {
    env,
    cwd: home,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const status = await new Promise((resolve) => child.on('exit', resolve));
  if (status !== 0) process.stdout.write(`(exit ${status})\n`);
  return status;
}

/**
 * Runs a shell line at a terminal of its own (see hasScript), showing what it prints and
 * returning it. `interruptWhen` resolves when Ctrl-C should be typed.
 */
async function atTerminal(line, interruptWhen) {
  process.stdout.write(`$ ${line}\n`);
  const shellLine = `${petsFunction}\n${line}`;
  const child = hasScript
    ? spawn('script', ['-qfec', shellLine, '/dev/null'], {
        env: { ...env, SHELL: '/bin/sh' },
        cwd: home,
        stdio: ['pipe', 'pipe', 'inherit'],
      })
    : spawn('sh', ['-c', shellLine], { env, cwd: home, stdio: ['pipe', 'pipe', 'pipe'] });
  let text = '';
  const collect = (chunk) => {
    text += chunk;
    process.stdout.write(chunk);
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr?.setEncoding('utf8').on('data', collect);
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  if (interruptWhen) {
    const early = await Promise.race([interruptWhen.then(() => false), exited.then(() => true)]);
    if (!early) {
      // Ctrl-C as typed: the terminal sends SIGINT to pets; without one, the signal itself.
      if (hasScript) child.stdin.write('\x03');
      else child.kill('SIGINT');
    }
  }
  const code = await exited;
  child.stdin.end();
  if (code !== 0) process.stdout.write(`(exit ${code})\n`);
  return { code, text: text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '\n') };
}

function capture(args) {
  const result = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  return result.stdout.trim();
}

async function startSandboxProcess() {
  const child = spawn(
    process.execPath,
    [bin, 'sandbox', '--json', '--plan', 'pro', '--first-id', '9007199254740993'],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited early (${code})`)));
  });
  return { child, info: JSON.parse(line) };
}

/** Resolves once `check()` holds, looking every 50 ms. */
async function until(check) {
  while (!check()) await sleep(50);
}

const { child, info } = await startSandboxProcess();
let shelter;
let failed = false;
try {
  show(
    `A sandbox API runs at ${info.baseUrl} (plan ${info.plan}); it saved itself as profile "${info.profile}".`,
  );
  await pets('pets profile list');
  await pets('pets profile use sandbox');

  show('Add a few pets. Ids are int64: this sandbox starts at 2^53 + 1, where doubles lose count.');
  await pets('pets add --name Rex --category-id 1 --status available');
  await pets('pets add --name Luna --category-id 2 --status pending');
  await pets('pets add --name "Miso 🐱" --category-id 9007199254740993 --status available');
  await pets('pets add --name Tom --category-id 1 --status sold');

  show('List them, then only the available ones.');
  await pets('pets list');
  await pets('pets list --status available --limit 10');

  show('Get one pet by id (the API operation is deprecated, so pets says so on stderr).');
  const firstId = capture(['list', '--json', '--limit', '1']).match(/"id":(\d+)/)?.[1];
  await pets(`pets get ${firstId}`);

  show(
    'Scripts: --jq filters the exact JSON with jq, built in. Ids stay exact, strings print raw.',
  );
  await pets(`pets list --jq '.[0].id'`);
  await pets(`pets list --jq '.[] | select(.status == "available") | .name'`);
  await pets(`pets list --jq 'length'`);

  show("pets paces itself to the key's rate limit; quota shows where the key stands.");
  await pets('pets quota');

  show('Errors say what happened and what to do, with an exit code scripts can test.');
  await pets('pets get 1');
  await pets('pets list --status lost');
  await pets('pets --profile staging list');
  await pets('pets --json get 1 -q');

  // The import: the free plan's ban, but 10 requests per window of 2 s instead of 60 per minute.
  // 20 pets take three windows (the login uses a request of the first), so that the run is
  // stopped in its first wait and its resume waits too.
  const { startSandbox } = require('../../dist/sandbox/index.js');
  shelter = await startSandbox({ plan: 'free', rpm: 10, windowSeconds: 2 });
  writeFileSync(join(home, 'key.txt'), shelter.key);
  const names = Array.from({ length: 20 }, (_, i) => `Pup ${String(i + 1).padStart(2, '0')}`);
  const csv = names.map((name, i) => `${name},${(i % 3) + 1},available`);
  writeFileSync(join(home, 'catalogue.csv'), `name,categoryId,status\n${csv.join('\n')}\n`);

  show(
    `Import a catalogue of 20 pets into another sandbox, at ${shelter.baseUrl}, whose key may ` +
      'send 10 requests per 2-second window.',
  );
  await pets(`pets profile set shelter --base-url ${shelter.baseUrl}`);
  await pets('pets auth login --profile shelter --with-key < key.txt');

  show('First a dry run: every record checked, the plan and its time, nothing created.');
  await pets('pets --profile shelter add --file catalogue.csv --dry-run');

  show(
    'Now the import. Between windows it waits, counting down; a Ctrl-C during a wait stops it ' +
      'and prints the command that resumes it.',
  );
  const createdSoFar = () => shelter.pets().length;
  const firstRun = await atTerminal(
    'pets --profile shelter add --file catalogue.csv',
    // A second after the first pet: in the wait for the second window, before the last pet.
    until(() => createdSoFar() >= 1).then(() => sleep(1000)),
  );
  const resume = /Resume with: (pets .+)/.exec(firstRun.text)?.[1]?.trim();
  if (!resume) throw new Error('the import printed no command to resume it');

  show(`${createdSoFar()} of 20 were created. The resume command, exactly as printed:`);
  await atTerminal(resume);

  show('Every pet once: the server holds 20 pets, 20 distinct names.');
  await pets(
    `pets --profile shelter list --limit 100 --jq 'length, ([.[].name] | unique | length)'`,
  );
  const held = shelter.pets().map((pet) => pet.name);
  if (held.length !== 20 || new Set(held).size !== 20) {
    throw new Error(`the shelter holds ${held.length} pets, ${new Set(held).size} distinct`);
  }
} catch (error) {
  failed = true;
  process.stderr.write(`demo failed: ${error.message}\n`);
} finally {
  await shelter?.close();
  child.kill('SIGINT');
  await new Promise((resolve) => child.on('exit', resolve));
  rmSync(home, { recursive: true, force: true });
  show('The sandboxes have stopped.');
}
process.exitCode = failed ? 1 : 0;
