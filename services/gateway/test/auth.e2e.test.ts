import { api, buildAccount, buildKey, ops, waitFor } from '@idv/testkit';

const LIST = '/v1/verification-sessions';

function expectForbidden(response: { status: number; headers: Record<string, string>; text: string }) {
  expect(response.status).toBe(403);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.text).toBe('{"message":"Forbidden"}');
}

describe('gateway authentication', () => {
  it('when the Authorization header is missing, then 403 with exactly {"message":"Forbidden"}', async () => {
    expectForbidden(await api('GET', LIST));
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer not_a_key', 'bearer sk_test_lowercase_scheme'])(
    'when the Authorization header is malformed (%s), then the same 403 body',
    async (authorization) => {
      expectForbidden(await api('GET', LIST, { headers: { authorization } }));
    },
  );

  it('when the key is unknown, then the same 403 body, indistinguishable from a missing header', async () => {
    const missing = await api('GET', LIST);
    const unknown = await api('GET', LIST, { key: 'sk_live_thisKeyDoesNotExist0000000000000000000000' });
    expectForbidden(unknown);
    expect(unknown.text).toBe(missing.text);
    expect(unknown.headers['content-type']).toBe(missing.headers['content-type']);
  });

  it('when the key was revoked, then the same 403 body, and the key stays listed with revoked_at', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    expect((await api('GET', LIST, { key: key.secret })).status).not.toBe(403);
    await ops().revokeKey(key.id);
    await waitFor(async () => ((await api('GET', LIST, { key: key.secret })).status === 403 ? true : undefined), 1000);
    expectForbidden(await api('GET', LIST, { key: key.secret }));
    const listed = await ops().listKeys(account.id);
    expect(listed.data.find((k) => k.id === key.id)?.revoked_at).toEqual(expect.any(String));
  });

  it.each([
    ['pending', 'test'],
    ['pending', 'live'],
    ['suspended', 'test'],
    ['suspended', 'live'],
  ] as const)('when the account is %s, then a %s key gets 403 problem account_inactive', async (status, mode) => {
    const account = await buildAccount({ status });
    const key = await buildKey(account.id, mode);
    const response = await api('GET', LIST, { key: key.secret });
    expect(response.status).toBe(403);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ code: 'account_inactive', title: 'account_inactive', status: 403 });
    expect(response.body.type).toMatch(/#account_inactive$/);
  });

  it('when an internal operation is called without the internal token, then 401 unauthorized problem', async () => {
    const response = await api('POST', '/internal/accounts', {
      baseUrl: process.env.KEYS_URL,
      body: { name: 'x', email: 'x@example.com' },
    });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'unauthorized' });
    const forged = await api('POST', '/internal/accounts', {
      baseUrl: process.env.KEYS_URL,
      headers: { 'x-idv-internal-token': 'guess-guess-guess-guess' },
      body: { name: 'x', email: 'x@example.com' },
    });
    expect(forged.status).toBe(401);
  });

  it('when a public route is asked without a key, then the gateway does not ask for one', async () => {
    const response = await api('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
  });

  it('when a path under /v1 does not exist, then 404 not_found; a wrong method is 405 with Allow', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    const missing = await api('GET', '/v1/nothing', { key: key.secret });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'not_found' });
    const wrongMethod = await api('DELETE', LIST, { key: key.secret });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST, GET');
  });
});
