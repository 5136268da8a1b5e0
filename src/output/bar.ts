const BAR_WIDTH = 20;

/**
 * A share from 0 to 1 as a bar, the same in a batch's progress line and in `pets quota`;
 * `width` cells between the brackets (a narrow terminal's progress line draws it shorter).
 */
export function bar(share: number, width = BAR_WIDTH): string {
  const filled = Math.round(Math.min(1, Math.max(0, share)) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
