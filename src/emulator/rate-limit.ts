/**
 * Request rate limit per bearer token: at most `perSecond` requests in each
 * one-second window of the emulator clock; beyond it, 429 with Retry-After.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { second: number; count: number }>();
  constructor(private readonly perSecond: number) {}

  /** Seconds to wait when the request is over the limit, else undefined. */
  check(token: string, nowMs: number): number | undefined {
    if (!Number.isFinite(this.perSecond)) return undefined;
    const second = Math.floor(nowMs / 1000);
    const window = this.windows.get(token);
    if (!window || window.second !== second) {
      this.windows.set(token, { second, count: 1 });
      return undefined;
    }
    window.count++;
    return window.count > this.perSecond ? 1 : undefined;
  }
}
