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
  /** The database it names (/2), if any: the store must have it. */
  database?: number;
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
  // The store's client decodes both, and would fail on a % that escapes nothing (%zz),
  // after the check, as an error pets did not expect.
  if (decoded(url.username) === undefined || decoded(url.password) === undefined) {
    throw refuse(
      `has a user or password with a % that is not an escape (%40 for @, %25 for % itself)`,
    );
  }
  const password = urlPassword(text);
  const database = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined;
  url.password = '';
  return {
    url: text,
    shown: url.href.replace(/\/$/, ''),
    ...(password ? { password } : {}),
    ...(database === undefined ? {} : { database }),
    source,
  };
}

/**
 * The password in a store's URL as given, checked or not (PETS_RATE_STORE as a run starts),
 * to redact like the key: as written, if it does not decode (the check refuses it).
 */
export function urlPassword(text: string | undefined): string | undefined {
  const password = text ? URL.parse(text)?.password : undefined;
  return password ? (decoded(password) ?? password) : undefined;
}

/** A URL's user or password, percent-decoded; undefined for a % that escapes nothing. */
function decoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}
