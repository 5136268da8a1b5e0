// What the build (bundle.mjs) puts in place of parts of dependencies, each with the package
// whose files import it. test/build/stubs.test.ts fails when a stubbed import moves in a new
// release of that package, and the build fails if a stub matched nothing.
// Parts of dependencies that pets never runs but that would load at start-up.
export const stubs = [
  {
    // undici's HTTP/2 client loads http2, tls and crypto; pets's Agent sets allowH2: false
    // (src/http/transport.ts), so this is never called.
    package: 'undici',
    path: /^\.\/client-h2\.js$/,
    contents: "module.exports = () => { throw new Error('pets does not use HTTP/2'); };",
  },
  {
    // undici takes two things from http, which would load its client and server:
    // IncomingMessage, to recognise one as a request body (pets sends strings), and the
    // default header size: Node's default, as pets's Agent also says (src/http/transport.ts).
    // The clients a ProxyAgent makes for the proxy itself are given no size, and read it here.
    package: 'undici',
    path: /^node:http$/,
    contents:
      'module.exports = { IncomingMessage: class IncomingMessage {}, maxHeaderSize: 16 * 1024 };',
  },
  {
    // undici checks its own invariants with assert(value), which loads node:assert and its
    // error formatting. The same check, without them.
    package: 'undici',
    path: /^node:assert$/,
    contents: `module.exports = function assert(value, message) {
      if (!value) throw Object.assign(new Error(message ?? 'undici: assertion failed'), { code: 'ERR_ASSERTION' });
    };`,
  },
  {
    // undici builds a search tree of some 250 header names as it loads (3 ms, more than the
    // rest of a request's header handling), to give a response's header names as interned
    // strings. Without it, undici lower-cases each name itself: the same names.
    package: 'undici',
    path: /^\.\/tree$/,
    contents: 'module.exports = { tree: { lookup: () => undefined } };',
  },
  {
    // undici ships its HTTP parser (WebAssembly) as base64 in JavaScript, twice: with SIMD
    // and without. Both strings would sit in undici's file and its compile cache; the build
    // writes the bytes beside it instead (see below), and the parser reads the one it needs.
    package: 'undici',
    path: /^\.\.\/llhttp\/llhttp(_simd)?-wasm\.js$/,
    // In the single executable (src/build/executable.mjs) the same bytes are its assets.
    contents: (path) => `const sea = require('node:sea');
      module.exports = sea.isSea()
        ? Buffer.from(sea.getAsset('vendor/${wasmFile(path)}'))
        : require('node:fs').readFileSync(require('node:path').join(__dirname, '${wasmFile(path)}'));`,
  },
  {
    // commander needs child_process only for executable subcommands, which pets has none of.
    package: 'commander',
    path: /^node:child_process$/,
    contents:
      "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  },
  {
    // cli-table3 measures cells with an old string-width of its own; it gets the one pets
    // measures with (src/output/table.ts), so that a table is laid out by one width function.
    package: 'cli-table3',
    path: /^string-width$/,
    contents: "module.exports = require('string-width').default;",
  },
  {
    // ioredis logs through debug, which DEBUG=ioredis:* (or DEBUG=*, common in CI) turns on:
    // it would print each command, the AUTH in HELLO with the store's password among them, on
    // stderr. pets says what the store did through its own errors and notices; the library's
    // log never runs, whatever the environment says.
    package: 'ioredis',
    path: /^debug$/,
    contents: `function createDebug() {
      const debug = () => {};
      return Object.assign(debug, { enabled: false, log: debug, destroy: () => true });
    }
    createDebug.default = createDebug;
    module.exports = createDebug;`,
  },
  {
    // chalk asks supports-color about the terminal (loading tty and os); pets always passes
    // chalk a level of its own (src/output/color.ts).
    package: 'chalk',
    path: /^#supports-color$/,
    contents: 'export default { stdout: false, stderr: false };',
  },
];

/** The file beside undici's bundle for one of its parser modules: llhttp_simd.wasm, say. */
export function wasmFile(module) {
  return module.replace(/^.*\//, '').replace(/-wasm\.js$/, '.wasm');
}
