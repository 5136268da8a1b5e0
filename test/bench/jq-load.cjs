// What --jq adds to a run, alone: pets's jq chunk loaded from dist/, jq.wasm compiled and
// instantiated, one filter run on a small list. test/bench/startup.mjs times it.
const { join } = require('node:path');

const { loadJqEngine } = require(join(__dirname, '../../dist/vendor/jq.js'));
loadJqEngine().then((jq) => {
  jq.run(
    '[{"id":9007199254740993,"name":"Rex"}]',
    '.[0].id',
    ['-r', '-c'],
    {
      stdout: (bytes) => process.stdout.write(bytes) || true,
      stderr: () => {},
    },
    64 * 1024 * 1024,
  );
});
