// Builds dist/, the code bin/pets.js runs, from src/: `npm run build` (also npm ci's prepare).
// Scripts start pets thousands of times, so everything here is about start-up; each choice
// was measured with test/bench/startup.mjs.
//
// Pass 1 bundles with code splitting: every import() in the source stays a file of its own,
// so a command loads only what it uses. esbuild splits ES modules only.
// Pass 2 turns each file into CommonJS, and import() into require(): Node starts a CommonJS
// file about 8 ms sooner than an ES module, and require() of a chunk skips the ESM loader.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));
const outdir = join(root, 'dist');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// Parts of dependencies that pets never runs but that would load at start-up.
const stubs = [
  {
    // undici's HTTP/2 client loads http2, tls and crypto (~10 ms); pets never sets allowH2.
    importer: /[\\/]undici[\\/]/,
    path: /^\.\/client-h2\.js$/,
    contents: "module.exports = () => { throw new Error('pets does not use HTTP/2'); };",
  },
  {
    // undici takes two things from http, which would load its client and server (~3 ms):
    // IncomingMessage, to recognise one as a request body (pets sends strings), and the
    // default header size, which pets passes to its Agent instead (src/http/transport.ts).
    importer: /[\\/]undici[\\/]/,
    path: /^node:http$/,
    contents: 'module.exports = { IncomingMessage: class IncomingMessage {} };',
  },
  {
    // commander needs child_process only for executable subcommands, which pets has none of.
    importer: /[\\/]commander[\\/]/,
    path: /^node:child_process$/,
    contents:
      "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  },
  {
    // chalk asks supports-color about the terminal (loading tty and os); pets always passes
    // chalk a level of its own (src/output/color.ts).
    importer: /[\\/]chalk[\\/]/,
    path: /^#supports-color$/,
    contents: 'export default { stdout: false, stderr: false };',
  },
];

const leanDependencies = {
  name: 'lean-dependencies',
  setup(pluginBuild) {
    stubs.forEach((stub, index) => {
      pluginBuild.onResolve({ filter: stub.path }, (args) =>
        stub.importer.test(args.importer)
          ? { path: String(index), namespace: 'pets-stub' }
          : undefined,
      );
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'pets-stub' }, (args) => ({
      contents: stubs[Number(args.path)].contents,
      loader: 'js',
    }));
  },
};

const esm = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts', 'src/sandbox/index.ts'],
  outbase: 'src',
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Written in, so that `pets --version` reads no file.
  define: { __PETS_VERSION__: JSON.stringify(version) },
  plugins: [leanDependencies],
  write: false,
  logLevel: 'warning',
});

rmSync(outdir, { recursive: true, force: true });
for (const file of esm.outputFiles) {
  const commonjs = await transform(file.text, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    supported: { 'dynamic-import': false },
    minify: true,
    legalComments: 'none',
    sourcefile: relative(root, file.path),
    logLevel: 'warning',
  });
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, commonjs.code);
}
// The root package.json says ES modules (for src/); this folder's files are CommonJS.
writeFileSync(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
