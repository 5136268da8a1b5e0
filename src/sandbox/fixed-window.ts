/**
 * A fixed rate-limit window that opens at the first request counted in it and lasts
 * `lengthMs`. Requests refused for being over the limit are not counted.
 */
export class FixedWindow {
  private endsAt = Number.NEGATIVE_INFINITY;
  private count = 0;

  constructor(
    readonly limit: number,
    readonly lengthMs: number,
    /** How the window reads in messages: "minute", "day". */
    readonly unit: string,
  ) {}

  private isOpen(now: number): boolean {
    return now < this.endsAt;
  }

  used(now: number): number {
    return this.isOpen(now) ? this.count : 0;
  }

  remaining(now: number): number {
    return Math.max(0, this.limit - this.used(now));
  }

  isExhausted(now: number): boolean {
    return this.used(now) >= this.limit;
  }

  /** When the window resets; with no open window, when one opened now would reset. */
  resetsAt(now: number): number {
    return this.isOpen(now) ? this.endsAt : now + this.lengthMs;
  }

  record(now: number): void {
    if (!this.isOpen(now)) {
      this.endsAt = now + this.lengthMs;
      this.count = 0;
    }
    this.count++;
  }
}
