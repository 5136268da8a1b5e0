// The same request as undici-request.cjs, made with Node's own http client, for the start-up
// benchmark: what the request costs without undici, which the design card asks pets to use.
//   PETS_API_KEY=... node test/bench/node-http-request.cjs <base-url>
'use strict';
const { get } = require('node:http');

const url = new URL(`${process.argv[2]}/pets`);
get(url, { headers: { authorization: `Bearer ${process.env.PETS_API_KEY}` } }, (response) => {
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (chunk) => (body += chunk));
  response.on('end', () => process.stdout.write(`${body}\n`));
});
