// `npm run package`: dist/pets-linux-x64 (pets-<platform>-<arch>), pets and the Node it runs
// on as one file, for machines with no Node or an old one. Node's single executable
// applications, in Node 24's documented flow: this Node makes the blob
// (--experimental-sea-config) and postject injects it into a copy of this same Node, since the
// blob's format changes between versions. npm scripts run node_modules/node's Node 24, so that
// is the Node the executable embeds.
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
import { build } from 'esbuild';

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

// One script: bin/pets.js and every file of dist/ it loads, which esbuild follows through
// their relative require()s (`npm run build` has just made dist/).
const main = join(work, 'pets.cjs');
await build({
  absWorkingDir: root,
  entryPoints: ['bin/pets.js'],
  outfile: main,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: `node${process.versions.node.split('.')[0]}`,
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// WebAssembly (undici's HTTP parsers, jq) goes in as assets, named by their path under
// dist/vendor/: the stubs of src/build/bundle.mjs and src/output/jq-engine.ts read them with
// node:sea's getAsset when run as the executable.
const vendor = join(dist, 'vendor');
const assets = Object.fromEntries(
  readdirSync(vendor, { recursive: true })
    .filter((name) => name.endsWith('.wasm'))
    .map((name) => [name.split(sep).join('/'), join(vendor, name)]),
);
const blob = join(work, 'pets.blob');
const config = join(work, 'sea-config.json');
writeFileSync(
  config,
  JSON.stringify({
    main,
    output: blob,
    disableExperimentalSEAWarning: true,
    // V8's code for the script, made now: the executable keeps no compile cache of its own.
    useCodeCache: true,
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
