import { randomBytes } from 'node:crypto';
import { infraFromEnv } from '@idv/testkit';
import { createRedis, TokenBuckets, type Redis } from '../src';

/**
 * The token buckets against the real Redis, through the kit's client: a burst of takes on one connection takes
 * each token once, in the order the takes were made.
 */
let redis: Redis;
const prefix = `kit-test:bucket:${randomBytes(4).toString('hex')}:`;

beforeAll(() => {
  redis = createRedis(infraFromEnv().redisUrl);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('TokenBuckets', () => {
  it('when 60 takes of one bucket arrive at once, then exactly the burst of 40 is allowed, each token once and in order', async () => {
    const buckets = new TokenBuckets(redis);
    const takes = await Promise.all(Array.from({ length: 60 }, () => buckets.take(`${prefix}burst`, 0.001, 40)));

    expect(takes.filter((take) => take.allowed)).toHaveLength(40);
    expect(takes.slice(0, 40).every((take) => take.allowed)).toBe(true);
    expect(takes.slice(40).some((take) => take.allowed)).toBe(false);
    // Each allowed take saw the bucket one token lower than the take before it.
    const left = takes.slice(0, 40).map((take) => Math.round(take.tokens));
    expect(left).toEqual(Array.from({ length: 40 }, (_, index) => 39 - index));
  });

  it('when Redis has forgotten the script, then a burst of takes loads it again and is answered', async () => {
    const buckets = new TokenBuckets(redis);
    await redis.script('FLUSH');
    const takes = await Promise.all(Array.from({ length: 10 }, () => buckets.take(`${prefix}flushed`, 0.001, 5)));

    expect(takes.map((take) => take.allowed)).toEqual([true, true, true, true, true, false, false, false, false, false]);
  });

  it('when a take only looks (cost 0), then the bucket is unchanged', async () => {
    const buckets = new TokenBuckets(redis);
    await buckets.take(`${prefix}look`, 0.001, 3);
    const looks = await Promise.all(Array.from({ length: 5 }, () => buckets.take(`${prefix}look`, 0.001, 3, 0)));

    expect(looks.map((look) => Math.round(look.tokens))).toEqual([2, 2, 2, 2, 2]);
  });
});
