// The single executable's script (src/build/executable.mjs): what bin/pets.js does, with the
// files of dist/ read from the executable's assets. Each is loaded as Node loads a CommonJS
// file, under a folder that exists nowhere, so that it is compiled through pets's compile
// cache (src/runtime/compile-cache.ts) as in the npm install, and loaded only when a run
// needs it.
'use strict';
const Module = require('node:module');
const { dirname, join, relative, resolve, sep } = require('node:path');
const { getAsset } = require('node:sea');

const dist = join(dirname(process.execPath), '[pets executable]', 'dist');
const loaded = new Map();

/** The exports of a file of dist/, by its absolute path under `dist`. */
function load(filename) {
  const known = loaded.get(filename);
  if (known) return known.exports;
  const module = new Module(filename, null);
  module.filename = filename;
  module.paths = [];
  loaded.set(filename, module);
  module._compile(getAsset(relative(dist, filename).split(sep).join('/'), 'utf8'), filename);
  module.loaded = true;
  return module.exports;
}

// A relative require() in a file of dist/ names another file of dist/; anything else, such
// as node:fs, goes to Node as usual.
const nodeLoad = Module._load;
Module._load = function loadFromAssets(request, parent, isMain) {
  if (request.startsWith('.') && parent?.filename?.startsWith(dist + sep)) {
    return load(resolve(dirname(parent.filename), request));
  }
  return nodeLoad.call(this, request, parent, isMain);
};

load(join(dist, 'runtime', 'main.js'))
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
  });
