// The same request as undici-request.cjs, made with Node's own http or https client (as the
// URL says), for the start-up benchmark: the floor, what the request costs in Node without
// undici, which the design card asks pets to use. Over https, the private CA is trusted
// through NODE_EXTRA_CA_CERTS, as pets trusts it.
//   PETS_API_KEY=... node test/bench/node-request.cjs <base-url>
'use strict';
const url = new URL(`${process.argv[2]}/pets`);
const { get } = require(url.protocol === 'https:' ? 'node:https' : 'node:http');

get(url, { headers: { authorization: `Bearer ${process.env.PETS_API_KEY}` } }, (response) => {
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (chunk) => (body += chunk));
  response.on('end', () => process.stdout.write(`${body}\n`));
});
