// The seam between the API client and the network. The client builds HttpRequests; a sender
// delivers them: the rate gate (ratelimit/gate.ts), which sends through the undici transport
// (transport.ts) when the key's limits allow.

/** What `pets api -X` may send; only GET is ever resent after it may have arrived. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

export interface HttpRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Cancels the request wherever it is. */
  signal?: AbortSignal;
  /** Ends a wait for a send slot and keeps the request from being sent; once sent, it runs on. */
  stopSending?: AbortSignal;
  /**
   * The run has stopped (one stop for the whole run): the request is not let go, nor tried
   * again; one the rate gate has let go leaves only if the stop comes after its beforeSend.
   */
  halted?: AbortSignal;
  /**
   * Runs once, when the rate gate lets the request go, just before it is sent (a batch writes
   * the create's intent to its journal here). If it throws, the request is not sent.
   */
  beforeSend?: () => Promise<void>;
  /**
   * Called each time the request leaves, or may have (bytes that may have reached the server):
   * a caller that fails counts it as sent, not as stopped before sending.
   */
  left?: () => void;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export type HttpSender = (request: HttpRequest) => Promise<HttpResponse>;

/** A header's first value; undici gives repeated headers as arrays. */
export function headerValue(headers: HttpResponse['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
