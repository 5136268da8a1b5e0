import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { tempDir } from './config-dir.js';

export interface KeyPair {
  key: string;
  cert: string;
}

export interface TestCertificates {
  /** The private CA's certificate, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** For localhost, api.internal.test, api.corp.example, 127.0.0.1 and ::1, signed by the CA. */
  valid: KeyPair;
  /** As valid, but its validity ended yesterday. */
  expired: KeyPair;
  /** Signed by the CA, for another host. */
  otherHost: KeyPair;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A private CA and certificates made now with openssl, in a folder of `dir`'s. */
export function makeCertificates(): { dir: string; certificates: TestCertificates } {
  const dir = tempDir('pets-tls-');
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=pets test CA',
  ]);
  openssl(dir, ['req', ...ecKey, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=x']);
  const leaf = (name: string, names: string, days: string): KeyPair => {
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${names}\n`);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      days,
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ]);
    return {
      key: readFileSync(join(dir, 'leaf.key'), 'utf8'),
      cert: readFileSync(join(dir, `${name}.pem`), 'utf8'),
    };
  };
  return {
    dir,
    certificates: {
      caFile: join(dir, 'ca.pem'),
      // The names a company's API has, reached through a forward proxy or around it.
      valid: leaf(
        'valid',
        'DNS:localhost,DNS:api.internal.test,DNS:api.corp.example,IP:127.0.0.1,IP:::1',
        '2',
      ),
      expired: leaf('expired', 'DNS:localhost,IP:127.0.0.1', '-1'),
      otherHost: leaf('other', 'DNS:animal-store.example', '2'),
    },
  };
}

export interface TlsProxy {
  /** https://localhost:port/v1 */
  baseUrl: string;
  /** TCP connections accepted, handshake or not. */
  connections: number;
  /** The protocol ALPN chose for each completed handshake ('http/1.1'; false or null for none). */
  protocols: Array<string | false | null>;
  close(): Promise<void>;
}

/**
 * Serves HTTPS on loopback by passing each connection's bytes to a plain HTTP server (the
 * sandbox) once TLS is done. `alpn` is what it offers: with h2 first, a client that takes h2
 * speaks it to an HTTP/1.1 server and fails, which is the point.
 */
export async function startTlsProxy(
  targetPort: number,
  pair: KeyPair,
  alpn: string[],
): Promise<TlsProxy> {
  const proxy: TlsProxy = {
    baseUrl: '',
    connections: 0,
    protocols: [],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer({ ...pair, ALPNProtocols: alpn }, (socket) => {
    proxy.protocols.push(socket.alpnProtocol);
    const upstream = connect(targetPort, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  });
  server.on('connection', () => proxy.connections++);
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.baseUrl = `https://localhost:${(server.address() as AddressInfo).port}/v1`;
  return proxy;
}
