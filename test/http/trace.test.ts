import { describe, expect, it } from 'vitest';
import { tracingSender } from '../../src/http/trace.js';

describe('tracingSender', () => {
  it("shows the contract's rate headers (- when absent), then any other dialect's sent", async () => {
    const lines: string[] = [];
    const send = tracingSender(
      async () => ({
        status: 200,
        headers: {
          ratelimit: '"p"; r=4; t=2',
          'ratelimit-policy': '"p"; q=5; w=2',
          'x-rate-limit-remaining': '3',
          'content-type': 'application/json',
        },
        text: '[]',
      }),
      (line) => lines.push(line),
      () => 0,
      ['x-ratelimit-remaining'],
    );
    await send({ method: 'GET', url: 'http://x/v1/pets', headers: { authorization: 'Bearer k' } });
    expect(lines[1]).toBe(
      '< 200 in 0 ms; x-ratelimit-remaining=- ratelimit="p"; r=4; t=2 ratelimit-policy="p"; q=5; w=2 x-rate-limit-remaining=3',
    );
  });
});
