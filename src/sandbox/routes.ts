// The API's paths under /v1, and the methods each accepts.

export type Route =
  | { name: 'pets'; allowedMethods: readonly string[] }
  | { name: 'orders'; allowedMethods: readonly string[] }
  | { name: 'pet'; allowedMethods: readonly string[]; petIdText: string };

const PET_PATH = /^\/v1\/pets\/([^/]+)$/;

export function matchRoute(pathname: string): Route | undefined {
  if (pathname === '/v1/pets') return { name: 'pets', allowedMethods: ['GET', 'POST'] };
  if (pathname === '/v1/store/orders') return { name: 'orders', allowedMethods: ['GET'] };
  const segment = PET_PATH.exec(pathname)?.[1];
  if (segment === undefined) return undefined;
  try {
    return { name: 'pet', allowedMethods: ['GET'], petIdText: decodeURIComponent(segment) };
  } catch {
    return undefined;
  }
}

/** Splits a request target into its path and its query. */
export function splitTarget(target: string): { pathname: string; query: URLSearchParams } {
  const mark = target.indexOf('?');
  return mark === -1
    ? { pathname: target, query: new URLSearchParams() }
    : { pathname: target.slice(0, mark), query: new URLSearchParams(target.slice(mark + 1)) };
}
