import type { AccountId } from '@idv/contracts';
import { TokenBuckets, type Redis } from '@idv/kit';
import { decide, type RateDecision } from '../domain/rate-limit';

/** A token bucket per account, held in Redis so every gateway replica draws from the same bucket. */
export class RateLimiter {
  private readonly buckets: TokenBuckets;

  constructor(
    redis: Redis,
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly onUnavailable: (error: unknown) => void,
    private readonly prefix = 'idv:rl:',
  ) {
    this.buckets = new TokenBuckets(redis);
  }

  /**
   * Takes a token for the account. When Redis cannot answer, the request is let through (fail open):
   * an outage of the limiter must not become an outage of the API. It is logged and counted.
   */
  async take(accountId: AccountId): Promise<RateDecision> {
    try {
      const { allowed, tokens } = await this.buckets.take(`${this.prefix}${accountId}`, this.perSecond, this.burst);
      return decide(allowed, tokens, this.perSecond, this.burst);
    } catch (error) {
      this.onUnavailable(error);
      return decide(true, this.burst, this.perSecond, this.burst);
    }
  }
}
