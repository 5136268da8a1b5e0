import { isIP } from 'node:net';
import { loadProxyAgent } from './undici.js';
import type { Proxy } from './proxy-env.js';
import type { buildConnector } from 'undici';

type ProxyAgent = InstanceType<Awaited<ReturnType<typeof loadProxyAgent>>['ProxyAgent']>;
type Connector = buildConnector.connector;

/**
 * undici's ProxyAgents, one per proxy, with the agent's options (`agentOptions`) for the
 * requests they carry and `timeoutMs` for the proxy's own answer.
 */
export function createProxyAgents(agentOptions: object, timeoutMs: number) {
  const agents = new Map<Proxy, Promise<ProxyAgent>>();
  const tunnelFailures = new WeakSet<object>();
  // A request queued behind a CONNECT cannot be cancelled in undici until the tunnel opens,
  // and the proxy's socket would hold the process open: a run's cancel aborts the CONNECTs.
  const stopTunnels = new AbortController();

  /** The one ProxyAgent for `proxy`, made on first use. */
  function agentFor(proxy: Proxy): Promise<ProxyAgent> {
    let made = agents.get(proxy);
    if (made) return made;
    made = loadProxyAgent().then(({ ProxyAgent, Pool }) => {
      // The pools that carry requests: in absolute form to an https:// proxy, undici names
      // the proxy's host as the TLS server name of each request.
      const poolFor = (origin: URL, options: { connect: Connector; headersTimeout?: number }) =>
        new Pool(origin, { ...options, connect: withoutAddressAsServerName(options.connect) });
      return new ProxyAgent({
        ...agentOptions,
        uri: proxy.uri,
        connectTimeout: timeoutMs,
        // HTTP/1.1 to an https:// proxy too (see allowH2 in http/transport.ts).
        proxyTls: { allowH2: false },
        factory: poolFor,
        // The client that sends the CONNECT: undici's waits 300 s for the proxy's answer.
        clientFactory: (origin: URL, options: { connect: Connector }) => {
          const pool = poolFor(origin, { ...options, headersTimeout: timeoutMs });
          const openTunnel = pool.connect.bind(pool) as (
            params: Parameters<typeof pool.connect>[0],
          ) => Promise<unknown>;
          Object.assign(pool, {
            connect: (params: Parameters<typeof pool.connect>[0]) =>
              openTunnel({ ...params, signal: stopTunnels.signal }).catch((error: unknown) => {
                if (error !== null && typeof error === 'object') tunnelFailures.add(error);
                throw error;
              }),
          });
          return pool;
        },
      });
    });
    agents.set(proxy, made);
    return made;
  }

  return {
    agentFor,
    /** Whether `error` ended a CONNECT: the proxy's failure, not the API's. */
    failedOpeningTunnel: (error: unknown) => tunnelFailures.has(error as object),
    stopTunnels: () => stopTunnels.abort(),
    async close() {
      const made = await Promise.all(agents.values());
      await Promise.all(made.map((agent) => agent.close()));
    },
  };
}

/**
 * undici gives a proxy's host as the TLS server name even when it is an IP address (an IPv6
 * one in its URL's brackets), which SNI does not allow (RFC 6066): Node 24 warns of it
 * (DEP0123), Node 26 refuses the connection (ERR_INVALID_ARG_VALUE), and `[::1]` matches no
 * certificate. Without one, undici's connector sends none for an address.
 */
function withoutAddressAsServerName(connect: Connector): Connector {
  return (options, callback) =>
    connect(
      options.servername && isIP(options.servername.replace(/^\[(.*)\]$/, '$1'))
        ? { ...options, servername: undefined }
        : options,
      callback,
    );
}
