import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { probeSandbox } from '../../src/sandbox/identity.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { testSandbox } from '../helpers/sandbox.js';

describe('whether a sandbox is still running at a base URL', () => {
  it('is live only for the sandbox holding the key, which neither counts nor logs the question', async () => {
    const sandbox = await testSandbox({ rpm: 1 });
    expect(await probeSandbox(sandbox.baseUrl, sandbox.key)).toBe('live');
    expect(await probeSandbox(sandbox.baseUrl, `${sandbox.key}x`)).toBe('gone');
    expect(await probeSandbox(sandbox.baseUrl, sandbox.key)).toBe('live');
    expect(sandbox.requestLog).toEqual([]);
    // The one request of this minute is still there: the questions were not rate limited.
    const reply = await fetch(`${sandbox.baseUrl}/pets`, {
      headers: { authorization: `Bearer ${sandbox.key}` },
    });
    expect(reply.status).toBe(200);
  });

  it('is gone once the sandbox stops, and for an https base URL', async () => {
    const sandbox = await startSandbox();
    await sandbox.close();
    expect(await probeSandbox(sandbox.baseUrl, sandbox.key)).toBe('gone');
    expect(await probeSandbox('https://127.0.0.1:1/v1', sandbox.key)).toBe('gone');
  });

  it('is unknown, not gone, when something takes the connection and never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => {
      for (const socket of sockets) socket.destroy();
      silent.close();
    });
    const { port } = silent.address() as AddressInfo;
    expect(await probeSandbox(`http://127.0.0.1:${port}/v1`, 'sandbox_key_abcdef', 50)).toBe(
      'unknown',
    );
  });
});
