import { BlockList, isIP } from 'node:net';
import type { Env } from '../config/paths.js';
import { UsageError } from '../core/errors.js';

/** A forward proxy named by the environment. */
export interface Proxy {
  /** What undici connects to, with the credentials. */
  uri: string;
  /** The proxy as every message names it: scheme, host and port, never the credentials. */
  shown: string;
  /** The variable that named it (HTTPS_PROXY, http_proxy, …). */
  variable: string;
  /** The credentials, as given and as sent (`user:password`), for the run's redaction. */
  secrets: string[];
}

/** The proxies of the environment, and the hosts that go around them. */
export interface ProxySettings {
  https?: Proxy;
  http?: Proxy;
  /** Whether a host goes straight to the server, by NO_PROXY. */
  bypasses(url: URL): boolean;
}

/** The variables that name a proxy for a scheme, in the order curl reads them. */
const PROXY_VARIABLES = {
  https: ['https_proxy', 'HTTPS_PROXY'],
  http: ['http_proxy', 'HTTP_PROXY'],
} as const;
const NO_PROXY_VARIABLES = ['no_proxy', 'NO_PROXY'] as const;

/** Whether the environment names a proxy at all: without one, none of this loads. */
export function namesProxy(env: Env): boolean {
  return [...PROXY_VARIABLES.https, ...PROXY_VARIABLES.http].some((name) => Boolean(env[name]));
}

/**
 * The proxies as curl reads them: `https_proxy` (or `HTTPS_PROXY`) for https URLs only,
 * `http_proxy` (or `HTTP_PROXY`) for http URLs only, each lower-case one first and an empty
 * one as unset; a proxy without a scheme is http://, and without a port on 1080 (curl's
 * default; 443 for https://). undici's EnvHttpProxyAgent would also send https through
 * HTTP_PROXY, and reads NO_PROXY otherwise; hence this, with undici's ProxyAgent.
 */
export function proxySettings(env: Env): ProxySettings | undefined {
  if (!namesProxy(env)) return undefined;
  return {
    https: proxyOf(env, PROXY_VARIABLES.https),
    http: proxyOf(env, PROXY_VARIABLES.http),
    bypasses: noProxyMatcher(readVariable(env, NO_PROXY_VARIABLES)?.value ?? ''),
  };
}

/** The proxy a request to `url` goes through, or undefined to go straight to it. */
export function proxyFor(settings: ProxySettings, url: URL): Proxy | undefined {
  const proxy = url.protocol === 'https:' ? settings.https : settings.http;
  return proxy && !settings.bypasses(url) ? proxy : undefined;
}

function readVariable(env: Env, names: readonly string[]) {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

function proxyOf(env: Env, names: readonly string[]): Proxy | undefined {
  const found = readVariable(env, names);
  if (!found) return undefined;
  const { name, value } = found;
  const hint = `Set ${name} to a URL such as http://proxy.example:3128, or unset it.`;
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  // The value may hold credentials: it is not repeated.
  if (!url) throw new UsageError(`${name} is not a proxy URL`, { hint, code: 'proxy_invalid' });
  const shownScheme = `${url.protocol}//${url.host}`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `${name} names a ${url.protocol.slice(0, -1)} proxy (${shownScheme}); pets talks to http:// and https:// proxies`,
      { hint, code: 'proxy_invalid' },
    );
  }
  if (!url.port && url.protocol === 'http:') url.port = '1080';
  // Leniently: a malformed %-escape is kept as it is.
  const { unescape } = process.getBuiltinModule('node:querystring');
  const [user, password] = [unescape(url.username), unescape(url.password)];
  const secrets = [
    url.password,
    password,
    `${user}:${password}`,
    `${url.username}:${url.password}`,
  ];
  return {
    uri: `${url.protocol}//${url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''}${url.host}`,
    shown: `${url.protocol}//${url.host}`,
    variable: name,
    secrets: url.username || url.password ? [...new Set(secrets)].filter((s) => s !== ':') : [],
  };
}

/**
 * NO_PROXY as curl reads it: names, IP addresses and CIDR ranges, separated by commas or
 * spaces. A name matches itself and every name under it (`corp.example` and `.corp.example`
 * both match `corp.example` and `api.corp.example`; so does `*.corp.example`); an address
 * matches itself, or the range. `*` alone matches every host. Beyond curl, as Go and undici
 * read it: `host:port` (`[::1]:8080` for IPv6) matches that port only. Case and a final dot
 * are ignored.
 */
function noProxyMatcher(value: string): (url: URL) => boolean {
  if (value === '*') return () => true;
  const names: Array<{ name: string; port: number }> = [];
  const ranges = new BlockList();
  for (const entry of value.split(/[\s,]+/)) {
    if (!entry) continue;
    const cidr = /^\[?([0-9a-f.:]+)\]?\/(\d{1,3})$/i.exec(entry);
    const family = cidr && isIP(cidr[1]!);
    if (cidr && family) {
      ranges.addSubnet(cidr[1]!, Number(cidr[2]), family === 6 ? 'ipv6' : 'ipv4');
      continue;
    }
    // host, host:port, [IPv6] or [IPv6]:port; a bare IPv6 address is the whole entry.
    const parts = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(entry);
    const host = parts ? (parts[1] ?? parts[2]!) : entry;
    names.push({ name: normalHost(host.replace(/^\*?\./, '')), port: Number(parts?.[3] ?? 0) });
  }
  return (url) => {
    const host = normalHost(url.hostname.replace(/^\[(.*)\]$/, '$1'));
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const family = isIP(host);
    if (family && ranges.check(host, family === 6 ? 'ipv6' : 'ipv4')) return true;
    return names.some(
      (entry) =>
        (!entry.port || entry.port === port) &&
        (host === entry.name || (!family && host.endsWith(`.${entry.name}`))),
    );
  };
}

function normalHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.length > 1 && lower.endsWith('.') ? lower.slice(0, -1) : lower;
}
