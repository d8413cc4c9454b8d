import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { TokenBuckets } from './token-bucket';
import type { Redis } from './redis';

export interface ThrottleLimit {
  perSecond: number;
  burst: number;
}

export interface ThrottleDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

/**
 * Throttles traffic that carries no account per client address (failed authentications, QR images,
 * link opens): a generous token bucket per address and kind, shared by the replicas through Redis.
 * When Redis cannot answer, traffic goes through (an outage of the throttle is not an outage).
 */
export class AddressThrottle {
  private readonly buckets: TokenBuckets;
  private readonly refused;

  constructor(
    redis: Redis,
    private readonly limits: Record<string, ThrottleLimit>,
    private readonly deps: { logger: Logger; metrics: Metrics; prefix?: string },
  ) {
    this.buckets = new TokenBuckets(redis);
    this.refused = deps.metrics.counter('throttled_requests_total', 'Requests refused by the per-address throttle', [
      'kind',
    ] as const);
  }

  private limit(kind: string): ThrottleLimit {
    const limit = this.limits[kind];
    if (!limit) throw new Error(`no throttle limit for ${kind}`);
    return limit;
  }

  private key(kind: string, address: string): string {
    return `${this.deps.prefix ?? 'idv:throttle:'}${kind}:${address}`;
  }

  private decide(kind: string, allowed: boolean, tokens: number): ThrottleDecision {
    if (allowed) return { allowed, retryAfterSeconds: 0 };
    this.refused.inc({ kind });
    return { allowed, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.limit(kind).perSecond)) };
  }

  /** Counts one request of `kind` from `address`. */
  async take(kind: string, address: string): Promise<ThrottleDecision> {
    const { perSecond, burst } = this.limit(kind);
    try {
      const state = await this.buckets.take(this.key(kind, address), perSecond, burst, 1);
      return this.decide(kind, state.allowed, state.tokens);
    } catch (error) {
      this.deps.logger.error({ err: error, kind }, 'throttle unavailable; letting the request through');
      return { allowed: true, retryAfterSeconds: 0 };
    }
  }

  /**
   * Whether `address` would be refused now, without counting anything. `inFlight` requests already let
   * through and not yet counted each hold one token, so a burst sent at once cannot all pass one peek.
   */
  async peek(kind: string, address: string, inFlight = 0): Promise<ThrottleDecision> {
    const { perSecond, burst } = this.limit(kind);
    try {
      const state = await this.buckets.take(this.key(kind, address), perSecond, burst, 0);
      const left = state.tokens - inFlight;
      return this.decide(kind, left >= 1, left);
    } catch (error) {
      this.deps.logger.error({ err: error, kind }, 'throttle unavailable; letting the request through');
      return { allowed: true, retryAfterSeconds: 0 };
    }
  }
}
