// For the start-up benchmark, in a process of its own (the benchmark blocks on each run):
// serves TLS on loopback with the given certificate and hands each connection's bytes to
// the plain HTTP server on <port>. Prints its own port.
//   node test/bench/tls-proxy.cjs <port> <key.pem> <cert.pem>
'use strict';
const { readFileSync } = require('node:fs');
const { connect } = require('node:net');
const { createServer } = require('node:tls');

const [port, key, cert] = process.argv.slice(2);
const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (socket) => {
  const upstream = connect(Number(port), '127.0.0.1');
  socket.pipe(upstream).pipe(socket);
  socket.on('error', () => upstream.destroy());
  upstream.on('error', () => socket.destroy());
});
server.on('tlsClientError', () => {});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
