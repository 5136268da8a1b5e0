import { randomBytes } from 'node:crypto';
import { INT64_MAX, INT64_MIN } from '../api/contract.js';
import { PLANS, isPlanName } from './plans.js';
import type { SandboxOptions } from './types.js';

// Visible ASCII only: the key travels in a header and must survive copy and paste.
const KEY_PATTERN = /^[\x21-\x7e]+$/;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`sandbox ${name} must be a whole number of at least 1`);
  }
  return value;
}

function optionalLimit(name: string, value: number | undefined, fallback: number | null) {
  return value === undefined ? fallback : positiveInteger(name, value, 1);
}

/** Fills in defaults and rejects values the sandbox cannot honour. Never echoes the key. */
export function resolveOptions(options: SandboxOptions) {
  const plan = options.plan ?? 'free';
  if (!isPlanName(plan)) {
    throw new RangeError(`sandbox plan must be one of ${Object.keys(PLANS).join(', ')}`);
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError('sandbox port must be a whole number from 0 to 65535');
  }
  const seed = options.seed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError('sandbox seed must be a whole number of at least 0');
  }
  const key = options.key ?? `sandbox_${randomBytes(16).toString('hex')}`;
  if (!KEY_PATTERN.test(key)) {
    throw new RangeError('sandbox key must be non-empty visible ASCII without spaces');
  }
  const firstId = options.firstId ?? 1n;
  if (firstId < INT64_MIN || firstId > INT64_MAX) {
    throw new RangeError('sandbox firstId must be within int64');
  }
  return {
    host: options.host ?? '127.0.0.1',
    port,
    plan,
    limits: {
      rpm: optionalLimit('rpm', options.rpm, PLANS[plan].rpm),
      rpd: optionalLimit('rpd', options.rpd, PLANS[plan].rpd),
      rpmWindowMs: positiveInteger('windowSeconds', options.windowSeconds, 60) * 1000,
    },
    seed,
    dataFile: options.dataFile,
    key,
    firstId,
    banAfter: positiveInteger('banAfter', options.banAfter, 5),
    banMs: positiveInteger('banSeconds', options.banSeconds, 600) * 1000,
    now: options.now ?? Date.now,
  };
}
