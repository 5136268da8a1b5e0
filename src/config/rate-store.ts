// The address of a rate store shared by machines (PETS_RATE_STORE, or a profile's
// --rate-store): checked before anything is sent, and shown without its password.
import { UsageError } from '../core/errors.js';

export interface RateStoreAddress {
  /** The URL as given, password and all: only the store's client sees it. */
  url: string;
  /** The URL without its password, to name the store in messages and `pets quota`. */
  shown: string;
  /** The password, to redact wherever text is shown. */
  password?: string;
  /** Where it was set: PETS_RATE_STORE, or the profile. */
  source: 'environment' | 'config';
}

const EXAMPLE = 'redis://[user:password@]host:port[/db], or rediss:// for TLS';

/**
 * Checks a store's URL: `redis://` or `rediss://`, a host, a port if any, a database number if
 * any. `from` names where it came from, for the message. The password is never quoted.
 */
export function checkRateStore(
  text: string,
  from: string,
  source: RateStoreAddress['source'],
): RateStoreAddress {
  const refuse = (problem: string) =>
    new UsageError(`${from} ${problem}; nothing was sent`, {
      code: 'bad_rate_store',
      hint: `Give it as ${EXAMPLE}.`,
    });
  const url = URL.parse(text);
  if (!url) throw refuse('is not a URL');
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw refuse(`is a ${url.protocol.replace(/:$/, '')} URL, not a Redis one`);
  }
  if (!url.hostname) throw refuse('names no host');
  if (url.search || url.hash) throw refuse('has a query or fragment, which pets does not read');
  if (!/^(\/(\d{1,5})?)?$/.test(url.pathname)) {
    throw refuse('has a path that is not a database number (/0, /1, …)');
  }
  const password = urlPassword(text);
  url.password = '';
  return {
    url: text,
    shown: url.href.replace(/\/$/, ''),
    ...(password ? { password } : {}),
    source,
  };
}

/**
 * The password in a store's URL as given, checked or not (PETS_RATE_STORE as a run starts),
 * to redact like the key.
 */
export function urlPassword(text: string | undefined): string | undefined {
  const password = text ? URL.parse(text)?.password : undefined;
  try {
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
