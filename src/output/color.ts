import type { Env } from '../config/paths.js';

/**
 * Colour is on only for a terminal, and off when asked: --no-color, NO_COLOR (any value),
 * FORCE_COLOR=0 or TERM=dumb. chalk does not read NO_COLOR itself, so the choice is made here.
 */
export function colorEnabled(isTTY: boolean, env: Env, colorFlag: boolean): boolean {
  if (!colorFlag || env.NO_COLOR || env.TERM === 'dumb') return false;
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  return isTTY;
}

type Style = (text: string) => string;

/** The styles pets uses, named for what they mark. */
export interface Palette {
  bold: Style;
  dim: Style;
  red: Style;
  green: Style;
  yellow: Style;
  /** The PROTECTED badge before a create on a guarded profile. */
  badge: Style;
}

const same: Style = (text) => text;
const PLAIN: Palette = { bold: same, dim: same, red: same, green: same, yellow: same, badge: same };

/**
 * chalk's styles when colour is on, else plain text. chalk loads only then: setting up its
 * styles costs start-up time, and scripts, pipes and --json never show colour.
 */
export async function palette(enabled: boolean): Promise<Palette> {
  if (!enabled) return PLAIN;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  const { bold, dim, red, green, yellow } = chalk;
  return { bold, dim, red, green, yellow, badge: chalk.bgRed.white.bold };
}
