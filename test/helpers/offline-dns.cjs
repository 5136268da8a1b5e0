// Preloaded into a pets process by tests (NODE_OPTIONS=--require): names resolve without a
// query leaving the machine. PETS_TEST_HOSTS lists names that resolve to 127.0.0.1; localhost
// resolves as usual; any other name fails as a name that does not exist does (ENOTFOUND).
// Each lookup of a name is counted on stderr as `lookup <name>`, for tests of retries.
const dns = require('node:dns');

const local = new Set((process.env.PETS_TEST_HOSTS ?? '').split(',').filter(Boolean));
const original = dns.lookup;

dns.lookup = function lookup(hostname, options, callback) {
  const done = typeof options === 'function' ? options : callback;
  const all = typeof options === 'object' && options !== null && options.all;
  if (hostname === 'localhost' || hostname === '127.0.0.1') {
    return original.call(dns, hostname, options, callback);
  }
  process.stderr.write(`lookup ${hostname}\n`);
  process.nextTick(() => {
    if (local.has(hostname)) {
      if (all) done(null, [{ address: '127.0.0.1', family: 4 }]);
      else done(null, '127.0.0.1', 4);
      return;
    }
    done(
      Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: 'ENOTFOUND',
        errno: -3008,
        syscall: 'getaddrinfo',
        hostname,
      }),
    );
  });
  return {};
};
