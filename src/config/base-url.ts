import { UsageError } from '../core/errors.js';

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);

// Names under .localhost are not loopback here: undici asks the system resolver, which
// answers them from DNS unless systemd-resolved or nss-myhostname is set up, so whoever
// answers the query would get the key over plain http. localhost itself comes from
// /etc/hosts on every system.
function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Whether `baseUrl` is plain http to this machine, as a sandbox's address is. */
export function isLocalHttp(baseUrl: string): boolean {
  const url = URL.parse(baseUrl);
  return url?.protocol === 'http:' && isLoopback(url.hostname);
}

/**
 * Checks a base URL: https anywhere, plain http only to this machine, since the key travels in
 * every request. Returns it without a trailing slash.
 */
export function checkBaseUrl(
  text: string,
  origin: string,
  /** How to put the corrected address in place: by default, just the address. */
  use: (fixed: string) => string = (fixed) => `Use: ${fixed}`,
): string {
  const refuse = (why: string) =>
    new UsageError(`${origin}: ${why}`, {
      hint: "Give the API's address ending in /v1, e.g. https://api.example.com/v1.",
    });
  const url = URL.parse(text);
  if (!url) throw refuse('is not a URL');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw refuse(
      url.protocol !== 'http:'
        ? `must start with https:// (got ${url.protocol}//)`
        : url.hostname.endsWith('.localhost')
          ? `plain http is allowed only to a loopback host (127.0.0.0/8, ::1, localhost); ${url.hostname} is looked up in DNS, which may not answer with this machine: use http://127.0.0.1${url.port ? `:${url.port}` : ''}/v1 or https`
          : 'plain http is allowed only to a loopback host (127.0.0.0/8, ::1, localhost); use https',
    );
  }
  // A password in the URL would sit in argv and in the config file; keys go through `auth login`.
  if (url.username || url.password) throw refuse('must not contain a user name or password');
  if (url.search || url.hash) throw refuse('must not contain a query or a fragment');
  const href = url.href.replace(/\/+$/, '');
  // Without /v1 every path is wrong, and the 404s read as "no such pet" (exit 3) to scripts.
  if (!url.pathname.replace(/\/+$/, '').endsWith('/v1')) {
    throw new UsageError(`${origin}: the address must end in /v1 (the API's version)`, {
      hint: use(withV1(href)),
    });
  }
  return href;
}

/** The address with its last segment made /v1: appended, or replacing another version. */
function withV1(href: string): string {
  return /\/v\d+$/.test(href) ? href.replace(/\/v\d+$/, '/v1') : `${href}/v1`;
}

/** The host (and port) people know a base URL by; the text itself when it is no URL. */
export function hostOf(baseUrl: string): string {
  return URL.parse(baseUrl)?.host ?? baseUrl;
}

/**
 * The API's origin as one name per server: scheme, host and port, with every loopback name
 * (localhost, 127.0.0.0/8, ::1) one host, since they reach the same server and key.
 */
export function normalizedOrigin(baseUrl: string): string {
  const url = new URL(baseUrl);
  const host = isLoopback(url.hostname) ? 'loopback' : url.hostname.toLowerCase();
  return `${url.protocol}//${host}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}
