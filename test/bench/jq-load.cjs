// What --jq adds to a run, alone: pets's jq chunk loaded from dist/, jq.wasm compiled and
// instantiated, one filter run on a small list. test/bench/startup.mjs times it.
const { join } = require('node:path');

const { loadJq } = require(join(__dirname, '../../dist/vendor/jq.js'));
loadJq().then((jq) => {
  jq.raw('[{"id":9007199254740993,"name":"Rex"}]', '.[0].id', ['-r', '-c']);
});
