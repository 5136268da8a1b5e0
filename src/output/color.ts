import { Chalk, type ChalkInstance } from 'chalk';
import type { Env } from '../config/paths.js';

/**
 * Colour is on only for a terminal, and off when asked: --no-color, NO_COLOR (any value),
 * FORCE_COLOR=0 or TERM=dumb. chalk 5 does not read NO_COLOR itself, so the choice is made here.
 */
export function colorEnabled(isTTY: boolean, env: Env, colorFlag: boolean): boolean {
  if (!colorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return false;
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

export function palette(enabled: boolean): ChalkInstance {
  return new Chalk({ level: enabled ? 1 : 0 });
}
