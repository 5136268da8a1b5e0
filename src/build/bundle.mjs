// Builds dist/, the code bin/pets.js runs, from src/: `npm run build` (also npm ci's prepare).
// Scripts start pets thousands of times, so everything here is about start-up; each choice
// was measured with test/bench/startup.mjs.
//
// The layout, in as few files as the commands allow (each file costs a read, a cache lookup
// and a compile or a cache load):
//   dist/runtime/main.js   main, and the compile cache: --version stops here
//   dist/runtime/cli-stack.js  all of pets's own code, with commander and chalk
//   dist/vendor/*.js       large dependencies that only some commands use (undici, with its
//                          parsers as .wasm files, conf, cli-table3, jq-wasm,
//                          @inquirer/prompts, ioredis), each loaded on first use
//   dist/sandbox/index.js  the sandbox alone, for the benchmarks
// Each is one esbuild bundle without code splitting: an import() inside a bundle becomes code
// that runs on first use, not a file of its own. Each file is minified CommonJS, since Node
// starts a CommonJS file sooner than an ES module.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const outdir = join(root, 'dist');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

import { stubs, wasmFile } from './stubs.mjs';

// Dependencies with a file of their own, each loaded through the module of pets that names
// its exports: named, since a default export would not survive the trip through CommonJS.
const vendors = [
  { name: 'undici', entry: 'src/http/undici.ts' },
  { name: 'conf', entry: 'src/config/conf.ts' },
  { name: 'cli-table3', entry: 'src/output/table.ts' },
  // jq-wasm reads its jq.wasm from build/ beside its own file: dist/vendor/build/jq.wasm.
  { name: 'jq', entry: 'src/output/jq-engine.ts' },
  // Only a run that asks a question loads it (src/terminal/prompt.ts).
  { name: 'inquirer', entry: 'src/terminal/inquirer.ts' },
  // Only a run with a rate store shared by machines loads it (src/ratelimit/redis-store.ts).
  // It writes warnings to the console itself (a password the server does not need, a ready
  // check it skips), raw lines on stderr even under --json: in its file, console's
  // writers do nothing, and pets says what the store did through its own errors.
  { name: 'ioredis', entry: 'src/ratelimit/ioredis.ts', quiet: true },
];

/** What a vendor marked `quiet` gets in place of console's writers: nothing written. */
const quietConsole = {
  inject: 'src/build/quiet-console.mjs',
  define: Object.fromEntries(
    ['log', 'info', 'warn', 'error', 'debug', 'trace'].map((name) => [
      `console.${name}`,
      '__petsQuiet',
    ]),
  ),
};

// Packages whose ES build finds its files through import.meta.url, which a CommonJS bundle
// lacks: their CommonJS build is bundled instead, which uses __dirname.
const commonJsBuilds = new Map([['jq-wasm', createRequire(import.meta.url).resolve('jq-wasm')]]);

/** The stubs that matched an import: one that matched none means its package has moved on. */
const stubsUsed = new Set();

/**
 * Stubs the parts in stubs.mjs, and leaves to other files what `external` maps (a module's resolved
 * path to the file that holds it), as a require() relative to `outfile`.
 */
function linker(outfile, external) {
  return {
    name: 'pets-linker',
    setup(pluginBuild) {
      stubs.forEach((stub, index) => {
        const importer = new RegExp(`[\\\\/]node_modules[\\\\/]${stub.package}[\\\\/]`);
        pluginBuild.onResolve({ filter: stub.path }, (args) => {
          if (!importer.test(args.importer)) return undefined;
          stubsUsed.add(index);
          return { path: `${index} ${args.path}`, namespace: 'pets-stub' };
        });
      });
      pluginBuild.onResolve({ filter: /^jq-wasm$/ }, (args) => ({
        path: commonJsBuilds.get(args.path),
      }));
      pluginBuild.onLoad({ filter: /.*/, namespace: 'pets-stub' }, (args) => {
        const [index, path] = args.path.split(' ');
        const { contents } = stubs[Number(index)];
        return {
          contents: typeof contents === 'function' ? contents(path) : contents,
          loader: 'js',
          // What a stub requires resolves as from the project (string-width: pets's own).
          resolveDir: root,
        };
      });
      if (external.size === 0) return;
      pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'linker' || args.kind === 'entry-point') return undefined;
        const { path } = await pluginBuild.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'linker',
        });
        const file = external.get(path);
        return file && { path: `./${relative(dirname(outfile), file)}`, external: true };
      });
    },
  };
}

/** Bundles `entry` into `outfile`; returns the source files it took in. */
async function bundle(entry, outfile, external = new Map(), define = {}, inject = []) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    // import() becomes require(): no ES module loader at run time.
    supported: { 'dynamic-import': false },
    minify: true,
    legalComments: 'none',
    // Written in, so that `pets --version` reads no file.
    // esbuildDetection: undici then leaves its experimental HTTP/1 parser (milo) out and
    // uses llhttp alone, the parser Node itself ships.
    define: { __PETS_VERSION__: JSON.stringify(version), esbuildDetection: 'true', ...define },
    inject,
    plugins: [linker(outfile, external)],
    metafile: true,
    logLevel: 'warning',
  });
  return Object.keys(result.metafile.inputs);
}

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir);
// The root package.json says ES modules (for src/); this folder's files are CommonJS.
writeFileSync(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
const main = join(outdir, 'runtime/main.js');
const cliStack = join(outdir, 'runtime/cli-stack.js');
const vendorFiles = new Map();
for (const vendor of vendors) {
  const file = join(outdir, `vendor/${vendor.name}.js`);
  vendorFiles.set(join(root, vendor.entry), file);
  const { define, inject } = vendor.quiet ? quietConsole : {};
  const inputs = await bundle(vendor.entry, file, new Map(), define, inject && [inject]);
  // A vendor file must hold none of pets's own modules: a second copy of one would have
  // classes of its own, and instanceof would fail across the two.
  const own = inputs.filter(
    (input) => input.startsWith('src/') && input !== vendor.entry && input !== quietConsole.inject,
  );
  if (own.length > 0) throw new Error(`${vendor.name} would copy ${own.join(', ')}`);
}

const stackInputs = await bundle('src/runtime/cli-stack.ts', cliStack, vendorFiles);
// What main.js may load, each with a hash of its content: the compile cache names its entries
// by it (src/runtime/compile-cache.ts), since V8 takes cached code for any source of one length.
const fileHashes = Object.fromEntries(
  [cliStack, ...vendorFiles.values()].map((file) => [
    basename(file),
    createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16),
  ]),
);
if (Object.keys(fileHashes).length !== vendorFiles.size + 1)
  throw new Error('two files share a name');
const mainInputs = await bundle(
  'src/runtime/main.ts',
  main,
  new Map([[join(root, 'src/runtime/cli-stack.ts'), cliStack]]),
  { __PETS_FILE_HASHES__: JSON.stringify(fileHashes) },
);
// main.js may share only stateless helpers with cli-stack.js, for the same reason.
const shared = new Set([
  'src/core/version.ts',
  'src/core/stop-signals.ts',
  'src/config/paths.ts',
  'src/runtime/fd-output.ts',
  'src/output/mode.ts',
]);
const copied = mainInputs.filter(
  (input) => input.startsWith('src/') && stackInputs.includes(input) && !shared.has(input),
);
if (copied.length > 0) throw new Error(`main.js and cli-stack.js would both hold ${copied}`);
await bundle('src/sandbox/index.ts', join(outdir, 'sandbox/index.js'), vendorFiles);
const unused = stubs.filter((_, index) => !stubsUsed.has(index));
if (unused.length > 0) {
  throw new Error(
    `no import matched the stubs for ${unused.map((stub) => `${stub.package} ${stub.path}`)}: ` +
      'the package has changed; see src/build/stubs.mjs',
  );
}

mkdirSync(join(outdir, 'vendor/build'));
writeFileSync(
  join(outdir, 'vendor/build/jq.wasm'),
  readFileSync(join(dirname(require.resolve('jq-wasm')), 'build/jq.wasm')),
);
// undici's parsers as the bytes they are, for the stub above.
for (const module of [
  'undici/lib/llhttp/llhttp-wasm.js',
  'undici/lib/llhttp/llhttp_simd-wasm.js',
]) {
  writeFileSync(join(outdir, 'vendor', wasmFile(module)), require(module));
}
