import { isUtf8 } from 'node:buffer';
import { Agent, request } from './undici.js';
import { createProxyAgents } from './proxy-agents.js';
import { codeOf, InterruptedError, NetworkError, ServerError } from '../core/errors.js';
import { hostOf } from '../config/base-url.js';
import { proxyFor, type Proxy, type ProxySettings } from './proxy-env.js';
import type { HttpRequest, HttpResponse, HttpSender } from './types.js';

export interface TransportOptions {
  /** Per-request limit covering connect, headers and body. */
  timeoutMs: number;
  /** Larger bodies are refused: a broken or hostile server must not exhaust memory. */
  maxBodyBytes: number;
  /** The proxies the environment names (http/proxy-env.ts), when it names any. */
  proxy?: ProxySettings;
}

export interface Transport {
  send: HttpSender;
  /** The proxy a request to `url` goes through, as messages name it, or undefined. */
  proxyFor(url: string): string | undefined;
  close(): Promise<void>;
}

// Failures that happen before a byte of the request can have left this machine, so even a
// POST is known not to have reached the server: out of file handles, no socket was made.
const NEVER_CONNECTED =
  /^(EMFILE|ENFILE|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT)$/;
const TIMEOUT = /^UND_ERR_(CONNECT|HEADERS|BODY)_TIMEOUT$/;

/**
 * Sends requests over one keep-alive undici Agent, or through the environment's proxy with
 * undici's ProxyAgent (https in a CONNECT tunnel, http in absolute form). Redirects are never
 * followed.
 */
export function createTransport(options: TransportOptions): Transport {
  const agentOptions = {
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
  };
  const agent = new Agent(agentOptions);
  const proxyAgents = createProxyAgents(agentOptions, options.timeoutMs);

  async function send(req: HttpRequest): Promise<HttpResponse> {
    // undici's timeouts bound each phase, and its body timeout only the silence between two
    // chunks: a server trickling a byte a second would never trip it. One deadline bounds
    // connect, headers and body together, and Ctrl-C still cancels at once.
    const deadline = new AbortController();
    let proxy: Proxy | undefined;
    const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
    const cancel = () => {
      deadline.abort();
      proxyAgents.stopTunnels();
    };
    req.signal?.addEventListener('abort', cancel, { once: true });
    if (req.signal?.aborted) cancel();
    try {
      // What undici's index does for request(url, options): split the URL, call on the agent.
      const url = new URL(req.url);
      proxy = options.proxy && proxyFor(options.proxy, url);
      const response = await request.call(proxy ? await proxyAgents.agentFor(proxy) : agent, {
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
      const code = codeOf(error);
      const timedOut = deadline.signal.aborted || TIMEOUT.test(code ?? '');
      throw (
        (proxy &&
          proxyError(req, error, proxy, {
            timedOut,
            timeoutMs: options.timeoutMs,
            // The only TLS of a request in absolute form through an https:// proxy is the proxy's.
            atProxy:
              proxyAgents.failedOpeningTunnel(error) ||
              (proxy.shown.startsWith('https:') && req.url.startsWith('http:')),
          })) ??
        networkError(req, error, timedOut, options.timeoutMs)
      );
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', cancel);
    }
  }

  return {
    send,
    proxyFor: (url) => (options.proxy && proxyFor(options.proxy, new URL(url)))?.shown,
    async close() {
      await Promise.all([agent.close(), proxyAgents.close()]);
    },
  };
}

async function readBody(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
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
  // A declared length past the cap is refused before reading; any other body, as it comes.
  if (Number(headers['content-length']) > maxBytes) throw tooLarge();
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

function networkError(
  req: HttpRequest,
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
): NetworkError | ServerError {
  const code = codeOf(error);
  // An answer that is not HTTP (llhttp's parser refused it, or its headers are past the
  // limit) comes back the same however often it is asked for: final, as a bad body is.
  const notHttp =
    (error as Error | null)?.name === 'HTTPParserError'
      ? /\(([^)]*)\)$/.exec((error as Error).message)?.[1]
      : code === 'UND_ERR_HEADERS_OVERFLOW' && `headers over 16 KiB, ${code}`;
  if (notHttp) {
    return new ServerError(
      'bad_response',
      `${req.method} ${req.url}: the answer is not valid HTTP/1.1 (${notHttp})`,
      { hint: 'Check that the base URL points at the Animal Store API v1.', cause: error },
    );
  }
  const problem = code && certificateProblem(code, req.url);
  if (problem) {
    // Final: trying again meets the same certificate. The handshake failed before the request
    // was written.
    return neverArrived(req, error)(
      'certificate_untrusted',
      `the server's certificate is not trusted: ${problem} (${code})`,
      'If the server uses a company CA, trust it with NODE_EXTRA_CA_CERTS=/path/to/ca.pem ' +
        "(or NODE_USE_SYSTEM_CA=1, where it is in the system's store); " +
        'otherwise check the base URL (`pets profile show`).',
    );
  }
  if (!timedOut && (code === 'ENOTFOUND' || code === 'EAI_AGAIN')) {
    const host = new URL(req.url).hostname;
    return neverArrived(req, error)(
      'name_not_resolved',
      `could not resolve ${host} (${code})`,
      `Check the host name in the profile's base URL (\`pets profile show\`). If ${host} ` +
        'is reachable only through a proxy, set HTTPS_PROXY (see `pets help environment`).',
    );
  }
  const refused = code === 'ECONNREFUSED';
  const reason = refused
    ? 'connection refused (ECONNREFUSED)'
    : timedOut
      ? `no response within ${timeoutMs / 1000} s`
      : (code ?? (error instanceof Error ? error.message : 'unknown network error'));
  // What a failed create means for the pet is said by the client (api/create-outcome.ts).
  return new NetworkError(
    timedOut ? 'timeout' : refused ? 'connection_refused' : 'network_error',
    `${req.method} ${req.url} failed: ${reason}`,
    {
      hint: timedOut
        ? 'The server is slow or unreachable: try again, or raise --timeout.'
        : refused
          ? `Nothing is listening at ${hostOf(req.url)}: check that the server runs, and the base URL (\`pets profile show\`).`
          : "Check the network and the profile's base URL (`pets profile show`), then try again.",
      cause: error,
      requestMayHaveArrived: !NEVER_CONNECTED.test(code ?? ''),
    },
  );
}

/**
 * The failure as the proxy's, when it was: a CONNECT the proxy refused, left unanswered or cut
 * off, a 407 to a request in absolute form, a TLS handshake with the proxy that failed, or a
 * proxy that could not be reached. None reached the API's server; the proxy is named without
 * its credentials. Undefined for any other failure. `atProxy`: it happened before the tunnel
 * (or the connection to an https:// proxy) was open.
 */
function proxyError(
  req: HttpRequest,
  error: unknown,
  proxy: Proxy,
  { timedOut, timeoutMs, atProxy }: { timedOut: boolean; timeoutMs: number; atProxy: boolean },
): NetworkError | undefined {
  const code = codeOf(error);
  const named = proxyNamed(proxy);
  const answered = proxyAnswered(req, error, proxy);
  if (answered) return answered;
  if (atProxy && timedOut) {
    return neverArrived(req, error)(
      'proxy_timeout',
      `${named} did not answer within ${timeoutMs / 1000} s`,
      `Check ${proxy.variable} and that the proxy runs, or raise --timeout; hosts in NO_PROXY go around it.`,
    );
  }
  if (code === 'UND_ERR_PRX_CONN' || (atProxy && code === 'UND_ERR_SOCKET')) {
    return neverArrived(req, error)(
      'proxy_closed',
      `${named} closed the connection without answering (${code})`,
      `Check ${proxy.variable} and the proxy's log; hosts in NO_PROXY go around it.`,
    );
  }
  const tls = (atProxy || code === 'UND_ERR_PRX_TLS') && proxyTlsError(req, error, proxy);
  if (tls) return tls;
  if (timedOut || !NEVER_CONNECTED.test(code ?? '')) return undefined;
  return neverArrived(req, error)(
    'proxy_unreachable',
    `could not reach ${named}: ${code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'its name does not resolve' : 'no connection'} (${code})`,
    `Check ${proxy.variable} and that the proxy runs; hosts in NO_PROXY go around it.`,
  );
}

function proxyNamed(proxy: Proxy): string {
  return `the proxy ${proxy.shown} (${proxy.variable})`;
}

/**
 * The proxy answered instead of passing the request on (a refused CONNECT, or a 407 to a
 * request in absolute form): a 407 wants credentials, else policy. undici gives the status only
 * inside its error's message; undefined for any other failure.
 */
function proxyAnswered(req: HttpRequest, error: unknown, proxy: Proxy) {
  const message = error instanceof Error ? error.message : '';
  const status =
    /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/.exec(message)?.[1] ??
    (/^Proxy Authentication Required \(407\)$/.test(message) ? '407' : undefined);
  if (!status) return undefined;
  // node:http only for this rare message: the bundle otherwise never loads it.
  const { STATUS_CODES } = process.getBuiltinModule('node:http');
  const answer = `${status} ${STATUS_CODES[status] ?? ''}`.trim();
  const authRequired = status === '407';
  return neverArrived(req, error)(
    authRequired ? 'proxy_auth_required' : 'proxy_refused',
    `${proxyNamed(proxy)} answered ${answer}`,
    authRequired
      ? proxy.secrets.length
        ? `The proxy refused the user and password in ${proxy.variable}: check them (special characters percent-encoded).`
        : `The proxy wants a user and password: put them in ${proxy.variable}, as http://user:password@host:port.`
      : `The proxy did not let the request through to ${new URL(req.url).host}: ask its administrators, or if ${new URL(req.url).hostname} is reachable directly, add it to NO_PROXY.`,
  );
}

/**
 * The TLS handshake with an https:// proxy failed: its certificate is not trusted, or it does
 * not speak TLS at all (an http:// proxy named as https://). Undefined for any other failure.
 */
function proxyTlsError(req: HttpRequest, error: unknown, proxy: Proxy): NetworkError | undefined {
  const code = codeOf(error);
  // undici wraps some failed handshakes with an https:// proxy as UND_ERR_PRX_TLS; the cause
  // says why.
  const tlsCode = code === 'UND_ERR_PRX_TLS' ? (codeOf((error as Error).cause) ?? code) : code;
  if (!proxy.shown.startsWith('https:') || tlsCode === undefined) return undefined;
  const problem = certificateProblem(tlsCode, proxy.shown);
  if (!problem && !/^ERR_SSL_|^ERR_TLS_|^EPROTO$|^UND_ERR_PRX_TLS$/.test(tlsCode)) return undefined;
  return neverArrived(req, error)(
    'proxy_tls_failed',
    `the TLS handshake with ${proxyNamed(proxy)} failed: ${problem ? `its certificate is not trusted: ${problem}` : 'it does not speak TLS there'} (${tlsCode})`,
    problem
      ? "If the proxy uses a company CA, trust it with NODE_EXTRA_CA_CERTS=/path/to/ca.pem (or NODE_USE_SYSTEM_CA=1, where it is in the system's store)."
      : `Is it an http:// proxy? Then set ${proxy.variable} to ${proxy.shown.replace(/^https:/, 'http:')}.`,
  );
}

/**
 * A failure before a byte of the request left this machine, so it cannot have reached the
 * server: `neverArrived(req, error)(code, what happened, what to do)`.
 */
function neverArrived(req: HttpRequest, error: unknown) {
  return (code: string, what: string, hint: string): NetworkError =>
    new NetworkError(code, `${req.method} ${req.url} failed: ${what}`, {
      hint,
      cause: error,
      requestMayHaveArrived: false,
    });
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
