import type { Redis } from '@idv/kit';
import { decide, type RateDecision } from '../domain/rate-limit';

/**
 * A token bucket per account, held in Redis so every gateway replica draws from the same bucket.
 * The refill is computed in the script from Redis's own clock, so replicas' clocks never disagree.
 */
const TOKEN_BUCKET = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or burst
local ts = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return { allowed, tostring(tokens) }
`;

type BucketRedis = Redis & { takeToken(key: string, rate: number, burst: number): Promise<[number, string]> };

export class RateLimiter {
  private readonly redis: BucketRedis;

  constructor(
    redis: Redis,
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly onUnavailable: (error: unknown) => void,
    private readonly prefix = 'idv:rl:',
  ) {
    redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TOKEN_BUCKET });
    this.redis = redis as BucketRedis;
  }

  /**
   * Takes a token for the account. When Redis cannot answer, the request is let through (fail open):
   * an outage of the limiter must not become an outage of the API. It is logged and counted.
   */
  async take(accountId: string): Promise<RateDecision> {
    try {
      const [allowed, tokens] = await this.redis.takeToken(`${this.prefix}${accountId}`, this.perSecond, this.burst);
      return decide(allowed === 1, Number(tokens), this.perSecond, this.burst);
    } catch (error) {
      this.onUnavailable(error);
      return decide(true, this.burst, this.perSecond, this.burst);
    }
  }
}
