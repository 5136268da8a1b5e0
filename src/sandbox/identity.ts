// How one `pets sandbox` tells that a profile's base URL is another sandbox still running.
// A port answering is not enough: once a sandbox stops, any server may take its port. So the
// asker sends a fresh nonce and the sandbox answers with an HMAC of it under its key, which
// only a server holding the profile's key can compute. The nonce travels, the key never does.

import { createHmac, randomBytes } from 'node:crypto';
import { get } from 'node:http';

/** Outside /v1: not part of the API, not rate limited, not in the request log. */
export const IDENTITY_PATH = '/.pets-sandbox';

const NONCE = /^[0-9a-f]{32}$/;

/** The proof a sandbox holding `key` gives for `nonce`, or undefined for a malformed nonce. */
export function identityProof(key: string, nonce: string): string | undefined {
  if (!NONCE.test(nonce)) return undefined;
  return createHmac('sha256', key).update(`pets-sandbox ${nonce}`).digest('hex');
}

/**
 * `live`: a sandbox holding `key` answers at `baseUrl`. `gone`: nothing listens there, or
 * something that is not that sandbox answers. `unknown`: something took the connection and did
 * not answer in time (a sandbox stopped with Ctrl-Z, say); the caller treats it as live.
 */
export type SandboxLiveness = 'live' | 'gone' | 'unknown';

export async function probeSandbox(
  baseUrl: string,
  key: string,
  timeoutMs = 1_500,
): Promise<SandboxLiveness> {
  const url = URL.parse(IDENTITY_PATH, baseUrl);
  // A sandbox serves plain http; a profile on https is some other server.
  if (url?.protocol !== 'http:') return 'gone';
  const nonce = randomBytes(16).toString('hex');
  url.searchParams.set('nonce', nonce);
  const proof = identityProof(key, nonce);
  // node:http without an agent, not fetch: Node's fetch goes through HTTP_PROXY when
  // NODE_USE_ENV_PROXY=1 is set, and a proxy's refusal or silence is not this machine's port.
  return new Promise((resolve) => {
    const req = get(url, { timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (text: string) => {
        body += text;
        if (body.length > 1_000) req.destroy();
      });
      res.on('end', () =>
        resolve(res.statusCode === 200 && body.trim() === proof ? 'live' : 'gone'),
      );
      res.on('error', () => resolve('gone'));
    });
    req.on('timeout', () => {
      resolve('unknown');
      req.destroy();
    });
    // Refused, reset, or not HTTP: no sandbox is there (after a timeout, this comes second).
    req.on('error', () => resolve('gone'));
  });
}
