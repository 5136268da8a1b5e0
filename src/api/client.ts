import {
  AuthError,
  ForbiddenError,
  NotFoundError,
  PetsError,
  RequestFailedError,
  ServerError,
} from '../core/errors.js';
import { redact } from '../core/redact.js';
import {
  headerValue,
  type HttpMethod,
  type HttpRequest,
  type HttpResponse,
  type HttpSender,
} from '../http/types.js';
import { JsonSyntaxError, parseJson, stringifyJson, type JsonValue } from '../json/int64-json.js';
import type { ApiTarget } from '../config/resolve-target.js';
import type { NewPet, Pet, PetStatus } from './contract.js';
import { withCreateOutcome } from './create-outcome.js';
import { ContractViolation, parseErrorBody, readPet, readPets } from './validate.js';

/** Where requests go and as whom: the resolved profile. */
export interface PetsApiOptions {
  target: ApiTarget;
  /** Every secret of the run, redacted from the server's words; by default the key alone. */
  secrets?: Iterable<string>;
  send: HttpSender;
  userAgent: string;
}

/** How a call can be stopped, and what it runs as it goes: as its HttpRequest's. */
export type CallOptions = Pick<
  HttpRequest,
  'signal' | 'stopSending' | 'halted' | 'beforeSend' | 'left'
>;

export interface ListQuery {
  limit?: number;
  status?: PetStatus;
}

/** What the server said about the deprecated operation, as it said it. */
export interface DeprecationHeaders {
  deprecation?: string;
  sunset?: string;
  link?: string;
}

/** The three operations of the Animal Store API v1, with every answer checked against the contract. */
export class PetsApi {
  constructor(private readonly options: PetsApiOptions) {}

  async listPets(query: ListQuery, options: CallOptions = {}): Promise<Pet[]> {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.status !== undefined) params.set('status', query.status);
    const search = params.size ? `?${params}` : '';
    return (await this.call('GET', `/pets${search}`, undefined, options, readPets)).body;
  }

  /** A failure says whether the pet may have been created (create-outcome.ts). */
  async createPet(pet: NewPet, options: CallOptions = {}): Promise<Pet> {
    try {
      const request = createPetRequest(pet);
      return (await this.call(request.method, request.path, request.body, options, readPet)).body;
    } catch (error) {
      throw withCreateOutcome(error, pet, this.options.target.profile);
    }
  }

  async getPet(
    id: bigint,
    options: CallOptions = {},
  ): Promise<{ pet: Pet; deprecation: DeprecationHeaders }> {
    // Said the same way whether one id was asked for or many.
    const notFound = `no pet with id ${id}`;
    const answer = await this.call('GET', `/pets/${id}`, undefined, options, readPet, notFound);
    const deprecation: DeprecationHeaders = {};
    for (const name of ['deprecation', 'sunset', 'link'] as const) {
      const value = headerValue(answer.response.headers, name);
      if (value !== undefined) deprecation[name] = value;
    }
    return { pet: answer.body, deprecation };
  }

  /**
   * Any request under the base URL, through the same sender (gate, pacing, retry rules,
   * body cap). The answer comes back whatever its status; `failure` maps a non-2xx one to
   * the error (and exit code) other commands would give. `path` must be checked first
   * (api/raw-path.ts): it is appended to the base as it is.
   */
  async raw(
    request: { method: HttpMethod; path: string; headers: Record<string, string>; body?: string },
    options: CallOptions = {},
  ): Promise<{ url: string; response: HttpResponse }> {
    const url = joinUrl(this.options.target.baseUrl, request.path);
    const response = await this.send(request.method, url, request.body, options, request.headers);
    return { url, response };
  }

  /**
   * Sends one request with the headers every request carries: the caller's may add to them
   * or replace them, but never the key's.
   */
  private send(
    method: HttpMethod,
    url: string,
    body: string | undefined,
    options: CallOptions,
    extraHeaders: Record<string, string> = {},
  ): Promise<HttpResponse> {
    const { target, userAgent } = this.options;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': userAgent,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...extraHeaders,
      authorization: `Bearer ${target.apiKey}`,
    };
    return this.options.send({ ...options, method, url, headers, body });
  }

  /** Sends a request of the contract's and reads its 2xx answer with `read`. */
  private async call<T>(
    method: HttpMethod,
    path: string,
    payload: unknown,
    options: CallOptions,
    read: (body: JsonValue) => T,
    notFound?: string,
  ) {
    const url = joinUrl(this.options.target.baseUrl, path);
    const requestBody = payload === undefined ? undefined : stringifyJson(payload);
    const response = await this.send(method, url, requestBody, options);
    if (response.status < 200 || response.status > 299) {
      throw this.failure(method, url, response, notFound);
    }
    // Redacted before anything reads it: a table cuts a long name short, and a key cut short
    // would no longer be found in its output.
    const body = this.checked(method, url, () =>
      read(parseJson(this.redacted(response.text), { integersAsDigitsOnly: true })),
    );
    return { body, response };
  }

  /** `text` from the server without the run's secrets, should the server echo one. */
  private redacted(text: string): string {
    return redact(text, this.options.secrets ?? [this.options.target.apiKey]);
  }

  /** Runs a contract check, turning a violation into exit 7 that names the request. */
  private checked<T>(method: HttpMethod, url: string, check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (error instanceof ContractViolation || error instanceof JsonSyntaxError) {
        const what =
          error instanceof JsonSyntaxError ? 'is not valid JSON' : 'breaks the API contract';
        throw new ServerError(
          'bad_response',
          `${method} ${url}: the answer ${what}: ${this.redacted(error.message)}`,
          { hint: 'Check that the base URL points at the Animal Store API v1.' },
        );
      }
      throw error;
    }
  }

  /** The error a non-2xx answer means, as every command reports it. */
  failure(method: HttpMethod, url: string, response: HttpResponse, notFound?: string): PetsError {
    const { status } = response;
    // The server's words reach the JSON error's detail, --debug, the journal and the state
    // file: never with the key. A message says each fact once, so where pets's own sentence
    // already says what the server did (401, 404, 5xx) they go in the detail only.
    const serverError = parseErrorBody(response.text);
    const detail = serverError && this.redacted(serverError.message);
    const code = serverError && this.redacted(serverError.code);
    const request = `${method} ${url}`;

    if (status === 401) {
      const { profile, keySource } = this.options.target;
      return new AuthError(
        code ?? 'unauthorized',
        `the server rejected the API key of profile "${profile}" (401)`,
        {
          status,
          detail,
          hint:
            keySource === 'environment'
              ? "PETS_API_KEY is set and overrides the profile's key: check or unset it."
              : `Run \`pets auth login --profile ${profile}\` to store a valid key.`,
        },
      );
    }
    if (status === 404) {
      // "no pet with id 999" names the request already; a bare "not found" needs its URL.
      const message = notFound ? `${notFound} (404)` : `${request}: not found (404)`;
      return new NotFoundError(code ?? 'not_found', message, { status, detail });
    }
    // No 429 reaches here: the rate gate in front waits it out or stops with RateLimitError.
    if (status >= 500) {
      return new ServerError(code ?? 'server_error', `${request}: the server failed (${status})`, {
        status,
        detail,
        hint: 'Try again later.',
      });
    }
    if (status === 403) {
      // A key the server refuses: every other request would meet the same.
      return new ForbiddenError(
        code ?? 'forbidden',
        `${request}: the server refused this key (403)${detail ? `: ${detail}` : ''}`,
        {
          status,
          detail,
          hint: "Check the key's standing with the API's provider, or use another key.",
        },
      );
    }
    if (status >= 300 && status < 400) {
      const location = headerValue(response.headers, 'location');
      return new ServerError(
        'unexpected_redirect',
        `${request}: the server redirected (${status})${location ? ` to ${this.redacted(location)}` : ''}`,
        {
          status,
          hint: "pets does not follow redirects, so the key never goes to another address: fix the profile's base URL.",
        },
      );
    }
    // Here the server's words are the only reason given, so the message carries them.
    return new RequestFailedError(
      code ?? 'request_failed',
      `${request} was rejected (${status})${detail ? `: ${detail}` : ''}`,
      { status, detail },
    );
  }
}

/** The request that creates `pet`: what createPet sends, and what `add --dry-run` shows. */
export function createPetRequest(pet: NewPet): { method: 'POST'; path: string; body: NewPet } {
  return { method: 'POST', path: '/pets', body: pet };
}

/** Joins a base URL that may or may not end in a slash with an absolute API path. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}
