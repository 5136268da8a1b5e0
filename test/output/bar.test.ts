import { describe, expect, it } from 'vitest';
import { bar } from '../../src/output/bar.js';

describe('bar', () => {
  it.each([
    [0, '[....................]'],
    [0.5, '[##########..........]'],
    [1, '[####################]'],
    [-1, '[....................]'],
    [7, '[####################]'],
  ])('draws %d as %s', (share, drawn) => {
    expect(bar(share)).toBe(drawn);
  });
});
