const BAR_WIDTH = 20;

/** A share from 0 to 1 as a bar, the same in a batch's progress line and in `pets quota`. */
export function bar(share: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, share)) * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
}
