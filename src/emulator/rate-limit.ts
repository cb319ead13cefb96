/**
 * Request rate limit per bearer token, as a token bucket: each token's bucket holds up to `perSecond` requests (a
 * second's burst) and refills at `perSecond` a second on the emulator's clock; a request finding it empty gets 429
 * with Retry-After, the whole seconds until the bucket holds a request again. The spec publishes no values (Limits
 * 3); a bucket is what real APIs use, so a client's bursts are tried as they would be there.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly perSecond: number) {}

  /** Seconds to wait when the request is over the limit, else undefined (and the request takes its place). */
  check(token: string, nowMs: number): number | undefined {
    if (!Number.isFinite(this.perSecond)) return undefined;
    const bucket = this.buckets.get(token) ?? { tokens: this.perSecond, at: nowMs };
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + (Math.max(0, nowMs - bucket.at) / 1000) * this.perSecond);
    bucket.at = nowMs;
    this.buckets.set(token, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }
}
