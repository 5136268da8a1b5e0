import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/** One request the proxy was asked to carry. */
export interface ProxiedRequest {
  /** CONNECT for a tunnel (https), else the method of a request in absolute form (http). */
  method: string;
  /** host:port for CONNECT, the absolute URL otherwise. */
  target: string;
  /** The Proxy-Authorization header it came with, if any. */
  proxyAuthorization?: string;
  /** What the proxy did: carried it, or the status it answered instead. */
  answer: number | 'carried';
}

export interface ForwardProxyOptions {
  /** Basic credentials it requires; a request without them is answered 407. */
  credentials?: { user: string; password: string };
  /** Answers every request with this status instead of carrying it (403: a policy refusal). */
  refuseWith?: number;
  /**
   * Host names only the proxy knows, each on 127.0.0.1: the API's name resolves only through
   * the proxy, as on a company network. Any other name is answered 502, as a proxy that could
   * not resolve it does; localhost and 127.0.0.1 are carried as they are.
   */
  hosts?: string[];
  /** Speaks TLS with this key pair: an https:// proxy. */
  tls?: { key: string; cert: string };
  /** The loopback address it listens on: 127.0.0.1 (the default) or ::1. */
  host?: '127.0.0.1' | '::1';
}

export interface ForwardProxy {
  /** http://127.0.0.1:port (https:// with `tls`), without credentials. */
  url: string;
  port: number;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

const REASONS: Record<number, string> = {
  403: 'Forbidden',
  407: 'Proxy Authentication Required',
  502: 'Bad Gateway',
};

/**
 * A forward proxy on loopback, as a company network has: CONNECT tunnels for https, requests
 * in absolute form for http, optionally with Basic credentials, or refusing everything.
 */
export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const expected =
    options.credentials &&
    `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`;

  /** Where `host` (a name or an address) goes, or undefined when the proxy cannot resolve it. */
  const resolve = (host: string): string | undefined =>
    options.hosts?.includes(host) || host === '127.0.0.1' || host === 'localhost'
      ? '127.0.0.1'
      : undefined;

  /** The status to answer instead of carrying the request, if any. */
  const refusal = (req: IncomingMessage, host: string): number | undefined => {
    if (options.refuseWith) return options.refuseWith;
    if (expected && req.headers['proxy-authorization'] !== expected) return 407;
    if (!resolve(host)) return 502;
    return undefined;
  };

  const server = (options.tls ? createTlsServer.bind(null, options.tls) : createServer)(
    (req, res) => {
      const target = new URL(req.url ?? '/');
      const record: ProxiedRequest = {
        method: req.method ?? 'GET',
        target: req.url ?? '',
        proxyAuthorization: req.headers['proxy-authorization'],
        answer: 'carried',
      };
      requests.push(record);
      const refused = refusal(req, target.hostname);
      if (refused) {
        record.answer = refused;
        res.writeHead(refused, REASONS[refused], {
          ...(refused === 407 ? { 'proxy-authenticate': 'Basic realm="test proxy"' } : {}),
          'content-type': 'text/plain',
        });
        res.end(`test proxy: ${REASONS[refused]}\n`);
        return;
      }
      const headers = { ...req.headers };
      delete headers['proxy-authorization'];
      delete headers['proxy-connection'];
      const upstream = httpRequest(
        {
          host: resolve(target.hostname),
          port: Number(target.port) || 80,
          method: req.method,
          path: `${target.pathname}${target.search}`,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    },
  );

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    const [host = '', port = '443'] = (req.url ?? '').split(/:(?=\d+$)/);
    const record: ProxiedRequest = {
      method: 'CONNECT',
      target: req.url ?? '',
      proxyAuthorization: req.headers['proxy-authorization'],
      answer: 'carried',
    };
    requests.push(record);
    const refused = refusal(req, host);
    if (refused) {
      record.answer = refused;
      client.end(
        `HTTP/1.1 ${refused} ${REASONS[refused]}\r\n` +
          (refused === 407 ? 'Proxy-Authenticate: Basic realm="test proxy"\r\n' : '') +
          'Content-Length: 0\r\n\r\n',
      );
      return;
    }
    const upstream = connect(Number(port), resolve(host));
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    upstream.on('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolveListen) => server.listen(0, host, resolveListen));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A proxy that breaks in one way, and what it saw. */
export interface BrokenProxy {
  /** http://127.0.0.1:port. */
  url: string;
  /** The connections pets opened to it. */
  connections: number;
  /** The CONNECT requests it read. */
  connects: number;
  /** Resolves at the first CONNECT it reads. */
  firstConnect: Promise<void>;
  close(): Promise<void>;
}

/**
 * A proxy that reads the CONNECT and then never answers ('hang'), or hangs up ('close'); or
 * ('plain') an http:// proxy met with TLS, which answers the handshake's bytes 400.
 */
export async function startBrokenProxy(
  behaviour: 'hang' | 'close' | 'plain',
): Promise<BrokenProxy> {
  const sockets = new Set<Socket>();
  let connected: () => void = () => {};
  const proxy = {
    connections: 0,
    connects: 0,
    firstConnect: new Promise<void>((resolve) => (connected = resolve)),
  };
  const server = createNetServer((socket) => {
    proxy.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', (bytes) => {
      if (bytes.toString('latin1').startsWith('CONNECT ')) {
        proxy.connects++;
        connected();
      }
      if (behaviour === 'close') socket.destroy();
      if (behaviour === 'plain')
        socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  });
}
