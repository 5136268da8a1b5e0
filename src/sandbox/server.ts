import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openStore } from './open-store.js';
import { resolveOptions } from './options.js';
import { PLANS } from './plans.js';
import { RateLimiter, type BanPolicy } from './rate-limiter.js';
import { createRequestHandler } from './request-handler.js';
import type { RunningSandbox, SandboxOptions, SandboxRequestLogEntry } from './types.js';

async function listen(server: Server, host: string, port: number): Promise<number> {
  try {
    await once(server.listen(port, host), 'listening');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`the sandbox cannot listen on ${host}:${port} (${reason})`, { cause: error });
  }
  return (server.address() as AddressInfo).port;
}

/**
 * Stops accepting connections and resolves once the last one is gone. Idle keep-alive
 * connections are closed now; busy ones as soon as their response is out.
 */
function stopServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}

/** Starts a local server of the Animal Store API v1. Everything it holds is its own. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const config = resolveOptions(options);
  const store = openStore(config);
  const banPolicy: BanPolicy = { strikesBeforeBan: config.banAfter, banMs: config.banMs };
  const requestLog: SandboxRequestLogEntry[] = [];
  const anonymous = new Map<string, RateLimiter>();
  let closing: Promise<void> | undefined;

  const server = createServer(
    createRequestHandler({
      store,
      key: config.key,
      keyLimiter: new RateLimiter(config.limits, banPolicy),
      anonymousLimiter: (address) => {
        if (!anonymous.has(address)) anonymous.set(address, new RateLimiter(PLANS.free, banPolicy));
        return anonymous.get(address)!;
      },
      now: config.now,
      requestLog,
      isClosing: () => closing !== undefined,
      onAnswer: options.onAnswer,
      latencyMs: options.latencyMs,
    }),
  );
  // A connection that was busy when close() came goes idle once its answer is out; close it
  // then, or close() would wait for the keep-alive timeout.
  server.on('request', (_req, res) => {
    res.on('finish', () => {
      if (closing !== undefined) setImmediate(() => server.closeIdleConnections());
    });
  });
  const port = await listen(server, config.host, config.port);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  return {
    baseUrl: `http://${host}:${port}/v1`,
    key: config.key,
    plan: config.plan,
    rpm: config.limits.rpm,
    rpd: config.limits.rpd,
    requestLog,
    pets: () => store.snapshot().pets,
    close: () => (closing ??= stopServer(server)),
  };
}
