import type { Redis } from './redis';

/**
 * Token buckets held in Redis, so every replica draws from the same bucket. The refill is computed in
 * the script from Redis's own clock, so replicas' clocks never disagree. A take of cost 0 only looks.
 */
const TOKEN_BUCKET = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or burst
local ts = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
local allowed = 0
if tokens >= math.max(cost, 1) then
  tokens = tokens - cost
  allowed = 1
end
if cost > 0 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
end
return { allowed, tostring(tokens) }
`;

type BucketRedis = Redis & { takeTokens(key: string, rate: number, burst: number, cost: number): Promise<[number, string]> };

export interface BucketState {
  allowed: boolean;
  /** Tokens left after this take. */
  tokens: number;
}

export class TokenBuckets {
  private readonly redis: BucketRedis;

  constructor(redis: Redis) {
    if (!('takeTokens' in redis)) redis.defineCommand('takeTokens', { numberOfKeys: 1, lua: TOKEN_BUCKET });
    this.redis = redis as BucketRedis;
  }

  /** Takes `cost` tokens when at least that many (and at least one) are there; cost 0 only looks. */
  async take(key: string, perSecond: number, burst: number, cost = 1): Promise<BucketState> {
    const [allowed, tokens] = await this.redis.takeTokens(key, perSecond, burst, cost);
    return { allowed: allowed === 1, tokens: Number(tokens) };
  }
}
