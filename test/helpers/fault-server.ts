import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { onTestFinished } from 'vitest';

export interface LoggedRequest {
  /** Arrival time by the server's clock. */
  at: number;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type FaultHandler = (req: LoggedRequest, res: ServerResponse, socket: Socket) => void;

export interface FaultServer {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** Every request that arrived, in order: what the client really sent. */
  requests: LoggedRequest[];
  handle(handler: FaultHandler): void;
  /** Drops the next `count` connections as soon as they open, before any request is read. */
  resetConnections(count: number): void;
  close(): Promise<void>;
}

/**
 * A loopback server whose answer each test scripts: wrong shapes, resets, hangs, huge bodies.
 * Given a clock, it logs arrivals and sends Date by that clock, so a test on a fake clock can
 * check that nothing arrived before the server allowed it.
 */
export async function startFaultServer(now: () => number = Date.now): Promise<FaultServer> {
  let handler: FaultHandler = (_req, res) => res.writeHead(500).end();
  const requests: LoggedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const logged = {
        at: now(),
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(logged);
      res.setHeader('date', new Date(now()).toUTCString());
      handler(logged, res, req.socket);
    });
  });
  let resets = 0;
  server.on('connection', (socket) => {
    if (resets > 0) {
      resets--;
      socket.resetAndDestroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    handle: (next) => (handler = next),
    resetConnections: (count) => (resets = count),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fault server of the current test's own, closed when it ends: no test answers with the
 * handler another left, or counts another's requests. Call it in a test or a beforeEach.
 */
export async function testFaultServer(now?: () => number): Promise<FaultServer> {
  const server = await startFaultServer(now);
  onTestFinished(() => server.close());
  return server;
}

/** Answers with a JSON body text as given (so tests can send exactly the bytes they mean). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
}
