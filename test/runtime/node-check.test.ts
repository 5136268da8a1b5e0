import { describe, expect, it } from 'vitest';
import { unsupportedNode } from '../../src/runtime/node-check.js';

describe('unsupportedNode', () => {
  it('refuses every Node older than 22.19, with one line naming the Node needed and how to get it', () => {
    for (const version of ['20.20.2', 'v18.0.0', '22.18.9', '22.0.0', '21.99.0', '0.10.48']) {
      const line = unsupportedNode(version, false);
      expect(line, version).toMatch(/^error: pets needs Node\.js 22\.19 or newer/);
      expect(line).toContain(`this is Node ${version}`);
      expect(line).toContain('https://nodejs.org');
      expect(line).toContain('pets-linux-x64');
      expect(line?.indexOf('\n')).toBe(line!.length - 1);
    }
  });

  it('accepts 22.19 and every later Node', () => {
    for (const version of [
      '22.19.0',
      'v22.19.0',
      '22.20.1',
      '23.0.0',
      '24.21.0',
      '26.1.0',
      '100.0.0',
    ])
      expect(unsupportedNode(version, false), version).toBeUndefined();
  });

  it('under --json, says it as the one JSON error object every failure writes', () => {
    const line = unsupportedNode('20.20.2', true)!;
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      error: {
        code: 'unsupported_node',
        message: expect.stringContaining('needs Node.js 22.19 or newer') as string,
        status: null,
        exitCode: 1,
      },
    });
  });
});
