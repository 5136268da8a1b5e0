// `pets sandbox`: a local server of the Animal Store API v1, for trying the client by hand
// and for tests that need a real HTTP peer with real rate limits.

export { PLAN_NAMES, PLANS } from './plans.js';
export { startSandbox } from './server.js';
export type { RunningSandbox, SandboxAnswer, SandboxOptions } from './types.js';
