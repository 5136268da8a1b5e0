import { joinUrl, type ApiTarget, type PetsApi } from '../../api/client.js';
import { apiPathProblem, isUnderBase } from '../../api/raw-path.js';
import { UsageError } from '../../core/errors.js';
import type { HttpMethod, HttpResponse } from '../../http/types.js';
import { parseJson, stringifyJson, type JsonValue } from '../../json/int64-json.js';

export const API_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

// Headers -H may not set: the key is pets's to send, and the rest decide where and how the
// request goes, which the transport owns.
const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'keep-alive',
  'te',
  'trailer',
  'expect',
]);

export interface ApiField {
  name: string;
  /** What the user wrote after the =, for a query parameter. */
  text: string;
  /** What goes in a JSON body. */
  value: JsonValue;
}

export interface ApiRequestOptions {
  path: string;
  method?: string;
  fields: ApiField[];
  headers: string[];
  /** The body as read from --input, when given. */
  input?: string;
}

export interface ApiCallResult {
  method: HttpMethod;
  url: string;
  response: HttpResponse;
}

/** A -f field: always a string. */
export function stringField(arg: string): ApiField {
  const [name, text] = splitField(arg, '-f');
  return { name, text, value: text };
}

/** A -F field: true, false, null and numbers (int64 exact) are typed; anything else is a string. */
export function typedField(arg: string): ApiField {
  const [name, text] = splitField(arg, '-F');
  let value: JsonValue = text;
  if (/^(true|false|null)$/.test(text) || /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    value = parseJson(text);
  }
  return { name, text, value };
}

function splitField(arg: string, flag: string): [string, string] {
  const at = arg.indexOf('=');
  if (at <= 0) throw new UsageError(`${flag} "${arg}" is not key=value`);
  return [arg.slice(0, at), arg.slice(at + 1)];
}

/** The request `pets api` sends, checked: refused paths and headers never reach the client. */
export function buildApiRequest(options: ApiRequestOptions, target: ApiTarget) {
  const problem = apiPathProblem(options.path);
  if (problem) throw new UsageError(`the path "${options.path}" ${problem}; nothing was sent`);
  const method = (options.method?.toUpperCase() ??
    (options.fields.length || options.input !== undefined ? 'POST' : 'GET')) as HttpMethod;
  if (!API_METHODS.includes(method)) {
    throw new UsageError(`-X ${options.method} is not one of ${API_METHODS.join(', ')}`);
  }
  const headers: Record<string, string> = {};
  for (const line of options.headers) {
    const at = line.indexOf(':');
    const name = line.slice(0, at).trim().toLowerCase();
    const value = line.slice(at + 1).trim();
    if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) {
      throw new UsageError(`-H "${line}" is not "Name: value"`);
    }
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      throw new UsageError(`-H ${name}: the value holds a control character`);
    }
    if (RESERVED_HEADERS.has(name)) {
      throw new UsageError(
        `-H ${name} is not allowed: pets sends the profile's key itself, to the base URL only`,
      );
    }
    headers[name] = value;
  }
  let path = options.path;
  let body = options.input;
  // Fields go in the query of a GET (or of a request whose body is --input), else in a JSON body.
  if (method === 'GET' || method === 'HEAD' || body !== undefined) {
    if (options.fields.length) {
      const query = new URLSearchParams(
        options.fields.map((field): [string, string] => [field.name, field.text]),
      );
      path += `${path.includes('?') ? '&' : '?'}${query}`;
    }
  } else if (options.fields.length) {
    body = stringifyJson(Object.fromEntries(options.fields.map((f) => [f.name, f.value])));
  }
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) {
    throw new UsageError(`a ${method} request cannot have a body (--input)`);
  }
  if (!isUnderBase(joinUrl(target.baseUrl, path), target.baseUrl)) {
    throw new UsageError(`the path "${options.path}" leaves the base URL; nothing was sent`);
  }
  return { method, path, headers, body };
}

/**
 * `pets api`: one request under the base URL through the same client, gate and rules as
 * every other command. The answer is returned whatever its status, for the caller to print
 * before it reports a failure.
 */
export async function callApi(
  options: ApiRequestOptions,
  deps: { api: PetsApi; target: ApiTarget; signal?: AbortSignal },
): Promise<ApiCallResult> {
  const request = buildApiRequest(options, deps.target);
  const { url, response } = await deps.api.raw(request, { signal: deps.signal });
  return { method: request.method, url, response };
}
