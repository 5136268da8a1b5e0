import type { Pet } from '../api/contract.js';
import type { PlanName } from './plans.js';

export interface SandboxOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default 'free'. */
  plan?: PlanName;
  /** Overrides the plan's requests per minute. */
  rpm?: number;
  /** Overrides the plan's requests per day. */
  rpd?: number;
  /**
   * The length in seconds of the short window that `rpm` counts (default 60): a shorter one
   * lets tests run a plan's windows in seconds.
   */
  windowSeconds?: number;
  /** Sample pets to pre-load when the store is empty (default 0). Deterministic. */
  seed?: number;
  /** JSON file holding the store: loaded at start, rewritten atomically after each create. */
  dataFile?: string;
  /** The accepted bearer key. Default: `sandbox_` and 32 random hex digits. */
  key?: string;
  /** The first id assigned to a new store (default 1n); ids then increase by 1. */
  firstId?: bigint;
  /** Requests sent during a cooldown before the key is banned (default 5). */
  banAfter?: number;
  /** Ban length in seconds (default 600). */
  banSeconds?: number;
  /** Clock in ms since the epoch; the sandbox reads time only from here. Default Date.now. */
  now?: () => number;
  /** Holds each answer this long (ms) before sending it: a slow server, for tests. */
  latencyMs?: number;
  /** Told of each answer as it goes out, for a log. */
  onAnswer?: (answer: SandboxAnswer) => void;
}

/** One answered request, as a log line shows it. */
export interface SandboxAnswer extends Omit<SandboxRequestLogEntry, 'at'> {
  /** X-RateLimit-Remaining as answered; null when the plan has no limit. */
  remaining: number | null;
}

export interface SandboxRequestLogEntry {
  /** When the request arrived, by the sandbox clock (ms). */
  at: number;
  method: string;
  /** The request target as sent: path and query. */
  path: string;
  /** The status answered; 0 while unanswered or when the client went away first. */
  status: number;
}

export interface RunningSandbox {
  /** `http://HOST:PORT/v1`, IPv6 hosts bracketed. */
  baseUrl: string;
  key: string;
  plan: PlanName;
  /** null = unlimited. */
  rpm: number | null;
  /** null = unlimited. */
  rpd: number | null;
  /** Every request received, in arrival order. */
  requestLog: SandboxRequestLogEntry[];
  /** A copy of the store, in id order. */
  pets(): Pet[];
  /** Stops accepting, closes keep-alive connections, resolves once closed. */
  close(): Promise<void>;
}
