import { createHash } from 'node:crypto';
import { api, buildAccount, buildKey, ops, waitFor } from '@idv/testkit';
import pg from 'pg';

const internal = () => ({ baseUrl: process.env.KEYS_URL, headers: { 'x-idv-internal-token': process.env.INTERNAL_TOKEN! } });

describe('accounts', () => {
  it('when an account is created, then it is pending until an operator approves it; suspend and approve move it', async () => {
    const account = await ops().createAccount({ name: 'Acme S.A.', email: 'owner@acme.example' });
    expect(account).toMatchObject({ object: 'account', status: 'pending' });
    expect(account.id).toMatch(/^acc_[0-9A-Z]{26}$/);
    expect((await ops().approveAccount(account.id)).status).toBe('active');
    expect((await ops().suspendAccount(account.id)).status).toBe('suspended');
    expect((await ops().approveAccount(account.id)).status).toBe('active');
  });

  it('when an unknown account is approved, then 404 not_found', async () => {
    const response = await api('POST', '/internal/accounts/acc_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6/approve', internal());
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found' });
  });
});

describe('API keys', () => {
  let db: pg.Client;
  beforeAll(async () => {
    db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
  });

  it('when a key is created without scopes, then it gets all five, and only the SHA-256 of its secret is stored', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'live');
    expect(key).toMatchObject({ object: 'api_key', mode: 'live', last_used_at: null, revoked_at: null });
    expect(key.id).toMatch(/^key_[0-9A-Z]{26}$/);
    expect(key.secret).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(key.scopes).toEqual(['sessions:read', 'sessions:write', 'webhooks:read', 'webhooks:write', 'usage:read']);

    const { rows } = await db.query('SELECT * FROM keys.api_keys WHERE id = $1', [key.id]);
    expect(rows[0].secret_hash).toBe(createHash('sha256').update(key.secret).digest('hex'));
    expect(JSON.stringify(rows[0])).not.toContain(key.secret);
  });

  it('when keys are listed, then they show id and metadata, never the secret', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test', ['usage:read']);
    const listed = await ops().listKeys(account.id);
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({ id: key.id, name: key.name, mode: 'test', scopes: ['usage:read'] });
    expect(JSON.stringify(listed)).not.toContain(key.secret);
    expect(listed.data[0]).not.toHaveProperty('secret');
  });

  it('when a key is revoked twice, then it stays listed with its first revoked_at', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    const first = await ops().revokeKey(key.id);
    const second = await ops().revokeKey(key.id);
    expect(first.revoked_at).toEqual(expect.any(String));
    expect(second.revoked_at).toBe(first.revoked_at);
    expect((await ops().listKeys(account.id)).data.map((k) => k.id)).toEqual([key.id]);
  });

  it('when a key is used through the gateway, then last_used_at is recorded', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    await api('GET', '/v1/verification-sessions', { key: key.secret });
    const used = await waitFor(async () => (await ops().listKeys(account.id)).data[0]?.last_used_at ?? undefined, 5000);
    expect(Date.parse(used)).toBeGreaterThan(Date.now() - 60_000);
  });

  it.each([
    ['an unknown mode', { mode: 'prod', name: 'x' }],
    ['an unknown scope', { mode: 'test', name: 'x', scopes: ['admin'] }],
    ['an empty name', { mode: 'test', name: '' }],
    ['an unknown field', { mode: 'test', name: 'x', owner: 'me' }],
  ])('when a key is requested with %s, then 422 validation_failed naming the field', async (_label, body) => {
    const account = await buildAccount();
    const response = await api('POST', '/internal/api-keys', { ...internal(), body: { account_id: account.id, ...body } });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'validation_failed' });
    expect(response.body.errors.length).toBeGreaterThan(0);
  });

  it('when a key is requested for an account that does not exist, then 422 validation_failed', async () => {
    const response = await api('POST', '/internal/api-keys', {
      ...internal(),
      body: { account_id: 'acc_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6', mode: 'test', name: 'x' },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ path: 'account_id', message: 'no such account' }]);
  });
});

describe('bad bodies', () => {
  it('when the body is not JSON, then 400 invalid_json', async () => {
    const response = await api('POST', '/internal/accounts', {
      ...internal(),
      rawBody: '{"name": ',
      headers: { ...internal().headers, 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_json' });
  });

  it('when the content type is not JSON, then 415 unsupported_media_type', async () => {
    const response = await api('POST', '/internal/accounts', {
      ...internal(),
      rawBody: 'name=x',
      headers: { ...internal().headers, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('when a field has the wrong type, then 422 validation_failed with the path', async () => {
    const response = await api('POST', '/internal/accounts', { ...internal(), body: { name: 42, email: 'x@example.com' } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([expect.objectContaining({ path: 'name' })]);
  });

  it('when the body is over 256 KiB, then 413 payload_too_large', async () => {
    const response = await api('POST', '/internal/accounts', {
      ...internal(),
      body: { name: 'x'.repeat(300 * 1024), email: 'x@example.com' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'payload_too_large' });
  });

  it('when the problem is returned, then it carries the request id and no stack trace', async () => {
    const response = await api('POST', '/internal/accounts', {
      ...internal(),
      rawBody: '[',
      headers: { ...internal().headers, 'content-type': 'application/json' },
    });
    expect(response.body.request_id).toBe(response.headers['x-request-id']);
    expect(response.text).not.toMatch(/at .*\(/);
  });
});
