import { isUtf8 } from 'node:buffer';
import { Agent, request } from './undici.js';
import { InterruptedError, NetworkError, ServerError } from '../core/errors.js';
import type { HttpRequest, HttpResponse, HttpSender } from './types.js';

export interface TransportOptions {
  /** Per-request limit covering connect, headers and body. */
  timeoutMs: number;
  /** Larger bodies are refused: a broken or hostile server must not exhaust memory. */
  maxBodyBytes: number;
}

export interface Transport {
  send: HttpSender;
  close(): Promise<void>;
}

// Failures that happen before a byte of the request can have left this machine, so even a
// POST is known not to have reached the server.
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const TIMEOUTS = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Sends requests over one keep-alive undici Agent. Redirects are never followed. */
export function createTransport(options: TransportOptions): Transport {
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    // HTTP/1.1 only: undici 8 offers h2 by default, and its h2 client would load http2 and
    // crypto on every HTTPS command; a CLI that sends a request or a paced batch gains nothing
    // from multiplexing. The build leaves undici's h2 client out.
    allowH2: false,
    // Node's default, given here so that the bundle need not load node:http to learn it.
    maxHeaderSize: 16 * 1024,
    connect: { timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });

  async function send(req: HttpRequest): Promise<HttpResponse> {
    // undici's timeouts bound each phase, and its body timeout only the silence between two
    // chunks: a server trickling a byte a second would never trip it. One deadline bounds
    // connect, headers and body together, and Ctrl-C still cancels at once.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
    const cancel = () => deadline.abort();
    req.signal?.addEventListener('abort', cancel, { once: true });
    if (req.signal?.aborted) cancel();
    try {
      // What undici's index does for request(url, options): split the URL, call on the agent.
      const url = new URL(req.url);
      const response = await request.call(agent, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: deadline.signal,
      });
      const bytes = await readBody(response.body, response.headers, options.maxBodyBytes, req);
      const text = decodeBody(bytes, response.statusCode, req);
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (req.signal?.aborted) throw new InterruptedError(true);
      if (error instanceof ServerError) throw error;
      const code = (error as { code?: unknown } | null)?.code;
      throw networkError(
        req,
        error,
        deadline.signal.aborted || (typeof code === 'string' && TIMEOUTS.has(code)),
        options.timeoutMs,
      );
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', cancel);
    }
  }

  return { send, close: () => agent.close() };
}

async function readBody(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown; bytes(): Promise<Uint8Array> },
  headers: HttpResponse['headers'],
  maxBytes: number,
  req: HttpRequest,
): Promise<Buffer> {
  const tooLarge = () => {
    body.destroy();
    return new ServerError(
      'response_too_large',
      `${req.method} ${req.url}: the response is larger than ${formatBytes(maxBytes)}`,
      { hint: 'Check that the base URL points at the Animal Store API.' },
    );
  };
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  // A declared length within the cap is enforced by undici, so read it in one go; only a
  // body of unknown length is counted chunk by chunk (async iteration costs more per request).
  if (headers['content-length'] !== undefined && Number.isFinite(declared)) {
    const bytes = await body.bytes();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * A contract answer is UTF-8: bytes that are not would otherwise turn silently into U+FFFD
 * in names. An error body is read leniently, since only its message is shown.
 */
function decodeBody(bytes: Buffer, status: number, req: HttpRequest): string {
  if (status >= 200 && status <= 299 && !isUtf8(bytes)) {
    throw new ServerError(
      'bad_response',
      `${req.method} ${req.url}: the answer is not valid UTF-8 (${status})`,
      { hint: 'Check that the base URL points at the Animal Store API v1.', status },
    );
  }
  const text = bytes.toString('utf8');
  // A BOM is not part of JSON; undici's text() dropped it, so this does too.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Why the server's certificate was refused, for the TLS codes Node gives (OpenSSL's names, and
 * Node's own for a host name the certificate does not cover), or undefined for any other error.
 */
function certificateProblem(code: string, url: string): string | undefined {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `it is not for ${new URL(url).hostname}`;
  if (code === 'CERT_HAS_EXPIRED') return 'it has expired';
  if (code === 'CERT_NOT_YET_VALID') return 'it is not valid yet';
  if (code === 'CERT_REVOKED') return 'it has been revoked';
  if (/CERT|_SIGNATURE|_ISSUER/.test(code)) return 'no trusted CA signed it';
  return undefined;
}

/**
 * A certificate error is final: trying again meets the same certificate. The handshake failed
 * before the request was written, so nothing reached the server.
 */
function certificateError(req: HttpRequest, error: unknown, code: string, problem: string) {
  return new NetworkError(
    'certificate_untrusted',
    `${req.method} ${req.url} failed: the server's certificate is not trusted: ${problem} (${code})`,
    {
      hint:
        'If the server uses a company CA, trust it with NODE_EXTRA_CA_CERTS=/path/to/ca.pem; ' +
        'otherwise check the base URL (`pets profile show`).',
      cause: error,
      requestMayHaveArrived: false,
    },
  );
}

function networkError(
  req: HttpRequest,
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
): NetworkError {
  const code = (error as { code?: unknown } | null)?.code;
  const problem = typeof code === 'string' ? certificateProblem(code, req.url) : undefined;
  if (problem) return certificateError(req, error, code as string, problem);
  const reason = timedOut
    ? `no response within ${timeoutMs / 1000} s`
    : typeof code === 'string'
      ? code
      : error instanceof Error
        ? error.message
        : 'unknown network error';
  const neverConnected = typeof code === 'string' && NEVER_CONNECTED.has(code);
  const refused = code === 'ECONNREFUSED';
  // What a failed create means for the pet is said by the client (api/create-outcome.ts).
  return new NetworkError(
    timedOut ? 'timeout' : refused ? 'connection_refused' : 'network_error',
    `${req.method} ${req.url} failed: ${refused ? 'connection refused (ECONNREFUSED)' : reason}`,
    {
      hint: networkHint(req.url, timedOut, refused),
      cause: error,
      requestMayHaveArrived: !neverConnected,
    },
  );
}

/** What to do next, for the failure that happened. */
function networkHint(url: string, timedOut: boolean, refused: boolean): string {
  if (timedOut) return 'The server is slow or unreachable: try again, or raise --timeout.';
  if (refused) {
    return `Nothing is listening at ${new URL(url).host}: check that the server runs, and the base URL (\`pets profile show\`).`;
  }
  return "Check the network and the profile's base URL (`pets profile show`), then try again.";
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
