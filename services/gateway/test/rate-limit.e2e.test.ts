import { api, buildAccount, buildKey, startServiceFromEnv } from '@idv/testkit';

const LIST = '/v1/verification-sessions';

/**
 * Sends `count` requests at once and returns them with the most a 20/s bucket of 40 may let through in
 * the time they took: the bound follows the clock, so a slow machine cannot make the test flaky.
 */
async function burst(urls: string[], key: string, count: number) {
  const started = Date.now();
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) => api('GET', LIST, { key, baseUrl: urls[i % urls.length] })),
  );
  const seconds = (Date.now() - started) / 1000;
  const passed = responses.filter((r) => r.status !== 429).length;
  return { responses, passed, maxAllowed: 40 + Math.ceil(20 * seconds) + 1 };
}

/** Empties the bucket with sequential requests until the first refusal. */
async function drain(key: string) {
  for (let i = 0; i < 400; i++) {
    const response = await api('GET', LIST, { key });
    if (response.status === 429) return response;
  }
  throw new Error('the bucket never emptied');
}

describe('gateway rate limit', () => {
  it('when 60 requests arrive at once, then the burst of 40 passes and the rest get 429 rate_limited', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    const { responses, passed, maxAllowed } = await burst([process.env.GATEWAY_URL!], key.secret, 60);
    const limited = responses.filter((r) => r.status === 429);
    // 40 from the bucket plus what refills (20/s) while the requests are in flight.
    expect(passed).toBeGreaterThanOrEqual(40);
    expect(passed).toBeLessThanOrEqual(maxAllowed);
    for (const response of limited) {
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    for (const response of responses) {
      expect(response.headers['ratelimit-limit']).toBe('40');
      expect(response.headers['ratelimit-remaining']).toMatch(/^\d+$/);
      expect(response.headers['ratelimit-reset']).toMatch(/^\d+$/);
    }
  });

  it('when the bucket is empty, then after Retry-After the account is served again', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    const limited = await drain(key.secret);
    expect(limited.body).toMatchObject({ code: 'rate_limited' });
    // The period the gateway told the client to wait is what is tested: it has to pass.
    await new Promise((resolve) => setTimeout(resolve, Number(limited.headers['retry-after']) * 1000));
    expect((await api('GET', LIST, { key: key.secret })).status).not.toBe(429);
  });

  it('when two keys of one account share the load, then they share one bucket', async () => {
    const account = await buildAccount();
    const testKey = await buildKey(account.id, 'test');
    const liveKey = await buildKey(account.id, 'live');
    const started = Date.now();
    const keys = [testKey.secret, liveKey.secret];
    const responses = await Promise.all(keys.flatMap((key) => Array.from({ length: 40 }, () => api('GET', LIST, { key }))));
    const passed = responses.filter((r) => r.status !== 429).length;
    expect(passed).toBeGreaterThanOrEqual(40);
    expect(passed).toBeLessThanOrEqual(40 + Math.ceil((20 * (Date.now() - started)) / 1000) + 1);
  });

  it('when two gateway replicas serve one account, then they draw from one bucket in Redis', async () => {
    const replica = await startServiceFromEnv('gateway');
    try {
      const account = await buildAccount();
      const key = await buildKey(account.id, 'test');
      const { passed, maxAllowed } = await burst([process.env.GATEWAY_URL!, replica.url], key.secret, 80);
      expect(passed).toBeGreaterThanOrEqual(40);
      // Two independent buckets would let about 80 through.
      expect(passed).toBeLessThanOrEqual(maxAllowed);
    } finally {
      await replica.stop();
    }
  });
});
