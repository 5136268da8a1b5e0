// The least an undici-based `pets list --json` can do, for the start-up benchmark: load pets's
// own undici bundle (dist/vendor/undici.js, with the build's stubs) through a V8 code cache, as
// pets does, send one GET and print the body. No commander, config, rate gate or output code.
//   PETS_API_KEY=... UNDICI_CACHE=<file> node test/bench/undici-request.cjs <base-url>
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const file = join(__dirname, '../../dist/vendor/undici.js');
const cacheFile = process.env.UNDICI_CACHE;
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // first run: the cache is written at exit
}
const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
const undici = { exports: {} };
script.runInThisContext()(
  undici.exports,
  require,
  undici,
  file,
  join(__dirname, '../../dist/vendor'),
);
if (!cachedData || script.cachedDataRejected) {
  process.once('exit', () => writeFileSync(cacheFile, script.createCachedData()));
}

const { Agent, request } = undici.exports;
const url = new URL(`${process.argv[2]}/pets`);
request
  .call(new Agent({ maxHeaderSize: 16 * 1024 }), {
    origin: url.origin,
    path: url.pathname,
    method: 'GET',
    headers: { authorization: `Bearer ${process.env.PETS_API_KEY}` },
  })
  .then((response) => response.body.text())
  .then((text) => process.stdout.write(`${text}\n`));
