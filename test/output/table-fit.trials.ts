import { describe, expect, it } from 'vitest';
import { NAMES, profileTable } from './table-fit.js';

describe('a table at every width from 40 to 100 columns (issue 42)', () => {
  it('never goes past the width, and cuts no name while it fits', async () => {
    for (let width = 40; width <= 100; width++) {
      const lines = await profileTable(width);
      expect(Math.max(...lines.map((line) => line.length)), `width ${width}`).toBeLessThanOrEqual(
        width,
      );
      // A name is whole wherever the name and the titles of the others fit (4 columns, 3 each).
      if (width >= NAMES[0]!.length + 'BASE URL'.length + 'KEY'.length + 13) {
        for (const name of NAMES) {
          expect(
            lines.some((line) => line.includes(` ${name} `)),
            `width ${width}`,
          ).toBe(true);
        }
      }
    }
  });
});
