#!/usr/bin/env node
// CommonJS, like dist/: Node starts it sooner than an ES module (see src/build/bundle.mjs).
require('../dist/runtime/main.js')
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
  });
