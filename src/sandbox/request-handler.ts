import type { IncomingMessage, ServerResponse } from 'node:http';
import { RATE_LIMIT_HEADERS } from '../ratelimit/rate-headers.js';
import { hasBearerKey } from './auth.js';
import { GET_PET_REMOVAL_DATE } from '../api/contract.js';
import { MAX_BODY_BYTES, createPet, getPet, listPets } from './pet-handlers.js';
import type { PetStore } from './pet-store.js';
import { rateLimitHeaders, rateLimitedResponse } from './rate-limit-responses.js';
import type { RateLimiter } from './rate-limiter.js';
import { IDENTITY_PATH, identityProof } from './identity.js';
import { readBody } from './read-body.js';
import { errorResponse, writeResponse, type HeaderMap, type SandboxResponse } from './responses.js';
import { matchRoute, splitTarget } from './routes.js';
import { listOrders } from './store-orders.js';
import type { SandboxAnswer, SandboxRequestLogEntry } from './types.js';

export interface SandboxState {
  store: PetStore;
  key: string;
  keyLimiter: RateLimiter;
  /** The limiter of requests without a valid key from one address, on the free plan's limits. */
  anonymousLimiter: (address: string) => RateLimiter;
  now: () => number;
  requestLog: SandboxRequestLogEntry[];
  isClosing: () => boolean;
  onAnswer?: (answer: SandboxAnswer) => void;
  /** Each answer waits this long before it goes out, as a distant server's would. */
  latencyMs?: number;
}

/** Headers on every response of the deprecated GET /pets/{petId} (RFC 8594, RFC 9745). */
const GET_PET_DEPRECATION = {
  deprecation: 'true',
  sunset: new Date(`${GET_PET_REMOVAL_DATE}T00:00:00Z`).toUTCString(),
  link: '</v1/pets>; rel="successor-version"',
};

const UNAUTHORIZED_MESSAGE =
  'a valid API key is required: send it in the header "Authorization: Bearer <API_KEY>"';

/**
 * Runs one request through the API's rules in the order a real service would: rate limit
 * (which counts every request, even one that fails auth), authentication, routing, handler.
 */
async function respond(
  state: SandboxState,
  req: IncomingMessage,
  now: number,
  headers: HeaderMap,
): Promise<SandboxResponse | undefined> {
  const { pathname, query } = splitTarget(req.url ?? '/');
  const route = matchRoute(pathname);
  if (route?.name === 'pet') Object.assign(headers, GET_PET_DEPRECATION);

  const authenticated = hasBearerKey(req.headers.authorization, state.key);
  const limiter = authenticated
    ? state.keyLimiter
    : state.anonymousLimiter(req.socket.remoteAddress ?? 'unknown');
  const admission = limiter.admit(now);
  Object.assign(headers, rateLimitHeaders(admission.state));
  if (admission.outcome !== 'admitted') return rateLimitedResponse(admission, now);

  if (!authenticated) {
    return errorResponse(401, 'unauthorized', UNAUTHORIZED_MESSAGE, {
      'www-authenticate': 'Bearer realm="pets-sandbox"',
    });
  }
  if (route === undefined) {
    return errorResponse(
      404,
      'not_found',
      'no such path: the API has /v1/pets, /v1/pets/{petId} and /v1/store/orders',
    );
  }
  const method = req.method ?? '';
  if (!route.allowedMethods.includes(method)) {
    const allow = route.allowedMethods.join(', ');
    return errorResponse(405, 'method_not_allowed', `this path accepts ${allow} only`, { allow });
  }
  if (route.name === 'pet') return getPet(state.store, route.petIdText);
  if (route.name === 'orders') return listOrders();
  if (method === 'GET') return listPets(state.store, query);
  const body = await readBody(req, MAX_BODY_BYTES);
  if (body.kind === 'aborted') return undefined;
  return createPet(state.store, req.headers['content-type'], body);
}

/**
 * Answers another `pets sandbox` asking whether this one is alive (identity.ts), outside the
 * API: not rate limited, not logged, not counted. True when the request was that question.
 */
function answerIdentity(state: SandboxState, req: IncomingMessage, res: ServerResponse): boolean {
  const { pathname, query } = splitTarget(req.url ?? '/');
  if (pathname !== IDENTITY_PATH || req.method !== 'GET') return false;
  const proof = identityProof(state.key, query.get('nonce') ?? '');
  res.writeHead(proof === undefined ? 400 : 200, { 'content-type': 'text/plain' });
  res.end(proof ?? 'a nonce of 32 hex digits is required');
  return true;
}

export function createRequestHandler(
  state: SandboxState,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (answerIdentity(state, req, res)) return;
    const receivedAt = state.now();
    const entry = { at: receivedAt, method: req.method ?? '', path: req.url ?? '', status: 0 };
    state.requestLog.push(entry);
    // The Date header follows the sandbox clock, so it agrees with X-RateLimit-Reset.
    const headers: HeaderMap = { date: new Date(receivedAt).toUTCString() };

    respond(state, req, receivedAt, headers)
      .catch(() =>
        errorResponse(500, 'internal_error', 'the sandbox failed while handling this request'),
      )
      .then(async (response) => {
        if (state.latencyMs) await new Promise((resolve) => setTimeout(resolve, state.latencyMs));
        if (response === undefined || res.destroyed) return;
        entry.status = response.status;
        // Decided at the last moment: a request that was already running when close() came
        // still gets its answer, and then its connection ends instead of idling.
        if (state.isClosing()) headers.connection = 'close';
        writeResponse(res, response, headers);
        const remaining = headers[RATE_LIMIT_HEADERS.remaining];
        state.onAnswer?.({
          ...entry,
          remaining: remaining === undefined ? null : Number(remaining),
        });
      })
      .catch(() => res.destroy());
  };
}
