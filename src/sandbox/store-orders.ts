import { jsonResponse, type SandboxResponse } from './responses.js';

// The spec lists GET /store/orders but does not show its shape. This is the sandbox's own,
// minimal and fixed, so that `pets api /store/orders` has something to reach: it is not the
// API's contract. The last id is beyond 2^53, so int64 exactness can be seen end to end.
export const SANDBOX_ORDERS = [
  { id: 1, petId: 1, quantity: 1, status: 'placed' },
  { id: 2, petId: 2, quantity: 2, status: 'approved' },
  { id: 9007199254740993n, petId: 3, quantity: 1, status: 'delivered' },
] as const;

export function listOrders(): SandboxResponse {
  return jsonResponse(200, SANDBOX_ORDERS);
}
