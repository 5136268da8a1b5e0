// What an API command needs, behind one import() in wiring.ts: esbuild makes a file of each
// import() target, and at start-up every file read costs (about 0.3 ms each, measured).
export { PetsApi } from '../api/client.js';
export { configDir } from '../config/paths.js';
export { tracingSender } from '../http/trace.js';
export { createTransport } from '../http/transport.js';
export { RateGate } from '../ratelimit/gate.js';
export { keyFingerprint, openStateFile } from '../ratelimit/state-file.js';
