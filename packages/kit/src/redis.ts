import { Redis } from 'ioredis';

export function createRedis(url: string): Redis {
  return new Redis(url, {
    // Commands issued in one turn of the event loop (under load, one per request the turn read) leave in one
    // write and their answers come back in one read: the gateway's rate limiter paid a socket write and the
    // wake-up of Redis per request. Each command is still its own atomic command, in the order it was issued.
    enableAutoPipelining: true,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
}

export async function checkRedis(redis: Redis): Promise<void> {
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error('unexpected PING answer');
}

export type { Redis };
