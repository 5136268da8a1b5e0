// `npm run package`: dist/pets-linux-x64 (pets-<platform>-<arch>), pets and the Node it runs
// on as one file, for machines with no Node or an old one. Node's single executable
// applications, in Node 24's documented flow: this Node makes the blob
// (--experimental-sea-config) and postject injects it into a copy of this same Node, since the
// blob's format changes between versions. npm scripts run node_modules/node's Node 24, so that
// is the Node the executable embeds.
//
// Its script is src/build/executable-main.cjs, which does what bin/pets.js does with the files
// of dist/ that `npm run build` has just made, carried as assets: the same code, in the same
// lazily loaded files, with the same compile cache as the npm install.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = join(root, 'dist');
const work = join(dist, 'sea');
const output = join(dist, `pets-${process.platform}-${process.arch}`);
const require = createRequire(import.meta.url);
const { version } = require(join(root, 'package.json'));

/** Runs a program to its end; its output shows only when it fails. */
function run(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout}${result.stderr}`);
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
  }
  return result.stdout;
}

rmSync(work, { recursive: true, force: true });
rmSync(output, { force: true });
mkdirSync(work, { recursive: true });

// Every file a run may load (dist/runtime and dist/vendor, code and WebAssembly), named by its
// path under dist/, as executable-main.cjs and the WebAssembly loaders ask for them.
const assets = Object.fromEntries(
  ['runtime', 'vendor'].flatMap((folder) =>
    readdirSync(join(dist, folder), { recursive: true })
      .filter((name) => /\.(js|wasm)$/.test(name))
      .map((name) => [`${folder}/${name.split(sep).join('/')}`, join(dist, folder, name)]),
  ),
);
const blob = join(work, 'pets.blob');
const config = join(work, 'sea-config.json');
writeFileSync(
  config,
  JSON.stringify({
    main: join(root, 'src/build/executable-main.cjs'),
    output: blob,
    disableExperimentalSEAWarning: true,
    // A native tool has no door for other code: NODE_OPTIONS (`--require`, `--inspect`) is
    // ignored, and SIGUSR1, which would start Node's inspector in a running pets, does not.
    execArgv: ['--disable-sigusr1'],
    execArgvExtension: 'none',
    assets,
  }),
);
run(process.execPath, ['--experimental-sea-config', config]);

copyFileSync(process.execPath, output);
chmodSync(output, 0o755);
run(process.execPath, [
  require.resolve('postject/dist/cli.js'),
  output,
  'NODE_SEA_BLOB',
  blob,
  '--sentinel-fuse',
  'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
]);
rmSync(work, { recursive: true, force: true });

const said = run(output, ['--version']).trim();
if (said !== version) throw new Error(`${output} --version said ${said}, not ${version}`);
const megabytes = (statSync(output).size / 1024 / 1024).toFixed(1);
console.log(`${output}: pets ${version} with Node ${process.versions.node}, ${megabytes} MiB`);
