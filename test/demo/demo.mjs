// `npm run demo`: starts the embedded sandbox on a free port, drives the built pets CLI
// against it the way a user would, and stops the sandbox. The config lives in a temporary
// folder, so the user's own profiles are never touched.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/pets.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'pets-demo-'));
const env = { ...process.env, PETS_CONFIG_DIR: join(home, 'config') };
for (const name of ['PETS_API_KEY', 'PETS_BASE_URL', 'PETS_PROFILE']) delete env[name];

function show(title) {
  process.stdout.write(`\n# ${title}\n`);
}

// Runs a shell line in which `pets` is this checkout's CLI; its output goes straight to the
// user's terminal (tables) or pipe (TSV), as it would outside the demo.
function pets(line) {
  process.stdout.write(`$ ${line}\n`);
  const shell = `pets() { "${process.execPath}" "${bin}" "$@"; }\n${line}`;
  const { status } = spawnSync('sh', ['-c', shell], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (status !== 0) process.stdout.write(`(exit ${status})\n`);
  return status;
}

function capture(args) {
  const result = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  return result.stdout.trim();
}

async function startSandbox() {
  const child = spawn(
    process.execPath,
    [bin, 'sandbox', '--json', '--plan', 'pro', '--first-id', '9007199254740993'],
    {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
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

const { child, info } = await startSandbox();
let failed = false;
try {
  show(
    `A sandbox API runs at ${info.baseUrl} (plan ${info.plan}); it saved itself as profile "${info.profile}".`,
  );
  pets('pets profile list');
  pets('pets profile use sandbox');

  show('Add a few pets. Ids are int64: this sandbox starts at 2^53 + 1, where doubles lose count.');
  pets('pets add --name Rex --category-id 1 --status available');
  pets('pets add --name Luna --category-id 2 --status pending');
  pets('pets add --name "Miso 🐱" --category-id 9007199254740993 --status available');
  pets('pets add --name Tom --category-id 1 --status sold');

  show('List them, then only the available ones.');
  pets('pets list');
  pets('pets list --status available --limit 10');

  show('Get one pet by id (the API operation is deprecated, so pets says so on stderr).');
  const firstId = capture(['list', '--json', '--limit', '1']).match(/"id":(\d+)/)?.[1];
  pets(`pets get ${firstId}`);

  show('Scripts read --json: exact JSON on stdout, here piped into another program.');
  pets(
    `pets list --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{` +
      `const ids=s.match(/"id":\\d+/g);console.log(ids.length+" pets, last "+ids.at(-1))})'`,
  );

  show("pets paces itself to the key's rate limit; quota shows where the key stands.");
  pets('pets quota');

  show('Errors say what happened and what to do, with an exit code scripts can test.');
  pets('pets get 1');
  pets('pets list --status lost');
  pets('pets --profile staging list');
  pets('pets --json get 1 -q');
} catch (error) {
  failed = true;
  process.stderr.write(`demo failed: ${error.message}\n`);
} finally {
  child.kill('SIGINT');
  await new Promise((resolve) => child.on('exit', resolve));
  rmSync(home, { recursive: true, force: true });
  show('The sandbox has stopped.');
}
process.exitCode = failed ? 1 : 0;
