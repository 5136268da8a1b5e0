// The spec's plans (Limits › Rate limits by plan) plus `unlimited` for local testing.
// Enterprise limits are "custom" in the spec; --rpm and --rpd play that role here.

export type PlanName = 'free' | 'pro' | 'business' | 'unlimited';

/** Requests per minute and per day; null means no limit on that window. */
export interface PlanLimits {
  readonly rpm: number | null;
  readonly rpd: number | null;
  /** How long the window `rpm` counts lasts (default a minute). */
  readonly rpmWindowMs?: number;
}

export const PLANS: Readonly<Record<PlanName, PlanLimits>> = Object.freeze({
  free: Object.freeze({ rpm: 60, rpd: 1_000 }),
  pro: Object.freeze({ rpm: 300, rpd: 10_000 }),
  business: Object.freeze({ rpm: 1_000, rpd: 100_000 }),
  unlimited: Object.freeze({ rpm: null, rpd: null }),
});

export const PLAN_NAMES = Object.keys(PLANS) as readonly PlanName[];

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && Object.hasOwn(PLANS, value);
}
