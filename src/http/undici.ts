// undici's index loads all of undici (fetch, websocket, mocks, caches): start-up time spent
// for a CLI that needs the agent and request() only. undici has no exports map, so its parts
// load by path; package.json pins its exact version, test/build/stubs.test.ts fails if a
// release moves them, and the types are undici's own (undici-core.d.ts). The build gives this
// module a file of its own, loaded by API commands alone (src/build/bundle.mjs).
export { default as Agent } from 'undici/lib/dispatcher/agent.js';
export { default as request } from 'undici/lib/api/api-request.js';

/**
 * undici's ProxyAgent, run only when the environment names a proxy (http/proxy-env.ts). It
 * shares this file's copy of undici's core (two copies would not know each other's symbols),
 * and as an import() it runs on first use, so a run without a proxy pays only its bytes.
 */
export async function loadProxyAgent() {
  const { default: ProxyAgent } = await import('undici/lib/dispatcher/proxy-agent.js');
  const { default: Dispatcher } = await import('undici/lib/dispatcher/dispatcher.js');
  const { default: connect } = await import('undici/lib/api/api-connect.js');
  const { default: Pool } = await import('undici/lib/dispatcher/pool.js');
  // A tunnel is opened with the proxy client's connect(), which undici's index puts on every
  // dispatcher (Object.assign(Dispatcher.prototype, api)); loaded by path, it is not there.
  (Dispatcher.prototype as { connect?: unknown }).connect ??= connect;
  return { ProxyAgent, Pool };
}
