import { api, type ApiResponse, buildAccount, buildKey, ops, startServiceFromEnv, waitFor } from '@idv/testkit';

const LIST = '/v1/verification-sessions';

describe('revocation across gateway replicas', () => {
  let replica: Awaited<ReturnType<typeof startServiceFromEnv>>;

  beforeAll(async () => {
    replica = await startServiceFromEnv('gateway');
  });

  afterAll(async () => {
    await replica.stop();
  });

  const gateways = () => [process.env.GATEWAY_URL!, replica.url];

  /** Time from the operator's answer until every replica refuses, polling both. */
  async function timeUntilRefused(key: string, isRefused: (r: ApiResponse) => boolean, act: () => Promise<unknown>) {
    await act();
    const started = Date.now();
    await Promise.all(
      gateways().map((baseUrl) =>
        waitFor(async () => (isRefused(await api('GET', LIST, { key, baseUrl })) ? true : undefined), 3000, 20),
      ),
    );
    return Date.now() - started;
  }

  it('when a key is revoked, then both replicas stop authorizing it within 1 second, although they had it cached', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'live');
    for (const baseUrl of gateways()) expect((await api('GET', LIST, { key: key.secret, baseUrl })).status).not.toBe(403);

    const elapsed = await timeUntilRefused(
      key.secret,
      (r) => r.status === 403 && r.text === '{"message":"Forbidden"}',
      () => ops().revokeKey(key.id),
    );
    expect(elapsed).toBeLessThan(1000);
  });

  it('when an account is suspended, then both replicas answer account_inactive within 1 second, and again serve it once reactivated', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    for (const baseUrl of gateways()) expect((await api('GET', LIST, { key: key.secret, baseUrl })).status).not.toBe(403);

    const elapsed = await timeUntilRefused(
      key.secret,
      (r) => r.body?.code === 'account_inactive',
      () => ops().suspendAccount(account.id),
    );
    expect(elapsed).toBeLessThan(1000);

    await ops().approveAccount(account.id);
    await Promise.all(
      gateways().map((baseUrl) =>
        waitFor(async () => ((await api('GET', LIST, { key: key.secret, baseUrl })).status !== 403 ? true : undefined), 1000, 20),
      ),
    );
  });

  it('when two keys of an account are active, then revoking one leaves the other working (rotation)', async () => {
    const account = await buildAccount();
    const oldKey = await buildKey(account.id, 'test');
    const newKey = await buildKey(account.id, 'test');
    await ops().revokeKey(oldKey.id);
    await waitFor(async () => ((await api('GET', LIST, { key: oldKey.secret })).status === 403 ? true : undefined), 1000);
    expect((await api('GET', LIST, { key: newKey.secret })).status).not.toBe(403);
  });
});
