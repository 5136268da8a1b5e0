// `pets api <path>`: the path a user gives is appended to the profile's base URL, and the key
// goes with it. So a path that could leave the base (another host, a scheme, a parent
// folder, in any encoding) is refused before anything is sent.

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const UNSAFE_CHARS = /[\u0000-\u0020\u007f\\#]/;

/** Why `path` may not be sent under a base URL, or undefined when it may. */
export function apiPathProblem(path: string): string | undefined {
  if (path === '') return 'is empty';
  if (SCHEME.test(path)) return 'is an absolute URL: give a path relative to the base URL';
  if (path.startsWith('//')) return 'starts with //, which names another host';
  if (!path.startsWith('/')) return 'must start with /';
  if (UNSAFE_CHARS.test(path)) return 'holds a space, control character, backslash or #';
  const mark = path.indexOf('?');
  let decoded = mark === -1 ? path : path.slice(0, mark);
  // Decode until stable, so that %2e%2e and %252e%252e are both seen as "..".
  for (let round = 0; round < 4; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return 'holds a malformed %-escape';
    }
    if (next === decoded) break;
    decoded = next;
    if (round === 3) return 'is encoded more times than any API path needs';
  }
  if (UNSAFE_CHARS.test(decoded)) return 'holds an encoded control character or backslash';
  if (decoded.split('/').some((segment) => segment === '..' || segment === '.')) {
    return 'holds a . or .. segment, which could leave the base URL';
  }
  if (decoded.startsWith('//')) return 'starts with an encoded //, which names another host';
  return undefined;
}

/** Whether `url` is still under `baseUrl`: same origin, and within the base's path. */
export function isUnderBase(url: string, baseUrl: string): boolean {
  const base = new URL(baseUrl);
  const target = new URL(url);
  const basePath = base.pathname.replace(/\/+$/, '');
  return (
    target.origin === base.origin &&
    (target.pathname === basePath || target.pathname.startsWith(`${basePath}/`))
  );
}
