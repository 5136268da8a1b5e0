// ioredis, by name. The build gives this module a file of its own (src/build/bundle.mjs):
// only a run with a rate store configured (PETS_RATE_STORE, or a profile's) loads it.
export { Redis } from 'ioredis';
