import type { ServerResponse } from 'node:http';
import type { ApiErrorBody } from '../api/contract.js';
import { stringifyJson } from '../json/int64-json.js';

export type HeaderMap = Record<string, string>;

/** A response before it is written: handlers build these, the request handler sends them. */
export interface SandboxResponse {
  status: number;
  body: unknown;
  headers?: HeaderMap;
}

export function jsonResponse(status: number, body: unknown, headers?: HeaderMap): SandboxResponse {
  return { status, body, headers };
}

/** The spec's Error body; its `status` always equals the HTTP status. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers?: HeaderMap,
): SandboxResponse {
  const body: ApiErrorBody = { code, message, status };
  return { status, body, headers };
}

export function writeResponse(
  res: ServerResponse,
  response: SandboxResponse,
  headers: HeaderMap,
): void {
  const text = stringifyJson(response.body);
  res.writeHead(response.status, {
    ...headers,
    ...response.headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
  });
  res.end(text);
}
