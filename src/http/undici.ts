// undici's index loads all of undici (fetch, websocket, mocks, caches): start-up time spent
// for a CLI that needs the agent and request() only. undici 7 has no exports map, so its
// parts load by path; the major version is pinned, and the types are undici's own
// (undici-core.d.ts). The build gives this module a file of its own, loaded by API commands
// alone (src/build/bundle.mjs).
export { default as Agent } from 'undici/lib/dispatcher/agent.js';
export { default as request } from 'undici/lib/api/api-request.js';
