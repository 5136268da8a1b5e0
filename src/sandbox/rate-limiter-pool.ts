import type { PlanLimits } from './plans.js';
import { RateLimiter, type BanPolicy } from './rate-limiter.js';

/** One RateLimiter per client id, created on first use, all with the same limits. */
export class RateLimiterPool {
  private readonly limiters = new Map<string, RateLimiter>();

  constructor(
    private readonly limits: PlanLimits,
    private readonly banPolicy: BanPolicy,
  ) {}

  for(clientId: string): RateLimiter {
    const limiter = this.limiters.get(clientId) ?? new RateLimiter(this.limits, this.banPolicy);
    this.limiters.set(clientId, limiter);
    return limiter;
  }
}
