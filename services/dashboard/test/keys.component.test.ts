import pg from 'pg';
import { api, startServiceFromEnv, testEnv, waitFor } from '@idv/testkit';
import type { TestBrowser } from './support/browser';
import { newOwner, startDashboard, type Dashboard } from './support/harness';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

/** A new organisation's owner, signed in; `role` changes their membership to test the other roles. */
async function signedInOwner(role: 'owner' | 'developer' | 'viewer' = 'owner') {
  const owner = newOwner('keys');
  const browser = dashboard.browser();
  await browser.post('/sign-up', owner, await browser.get('/sign-up'));
  const { rows } = await dashboard.pool.query<{ id: string; account_id: string }>(
    'SELECT u.id, m.account_id FROM users u JOIN memberships m ON m.user_id = u.id WHERE u.email = $1',
    [owner.email],
  );
  const { id: userId, account_id: accountId } = rows[0]!;
  if (role !== 'owner') await dashboard.pool.query('UPDATE memberships SET role = $2 WHERE user_id = $1', [userId, role]);
  const signedIn = await browser.post(
    '/sign-in',
    { email: owner.email, password: owner.password },
    await browser.get('/sign-in'),
  );
  expect(signedIn.location).toBe('/home');
  return { browser, owner, accountId };
}

async function createKey(browser: TestBrowser, fields: Record<string, string | string[]> = {}) {
  const page = await browser.get('/keys');
  const nonce = /name="nonce" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
  const body = new URLSearchParams({ _csrf: page.csrfToken(), nonce, name: 'backend', mode: 'test' });
  const scopes = fields.scopes ?? ['sessions:read', 'sessions:write', 'webhooks:read', 'webhooks:write', 'usage:read'];
  for (const [name, value] of Object.entries(fields)) if (name !== 'scopes') body.set(name, value as string);
  for (const scope of scopes as string[]) body.append('scopes', scope);
  const answer = await browser.request('POST', '/keys', body.toString(), { 'content-type': 'application/x-www-form-urlencoded' });
  return { answer, secret: /value="(sk_(?:test|live)_[A-Za-z0-9_-]+)"/.exec(answer.html)?.[1] ?? null, page, body };
}

describe('keys', () => {
  it('creates a key with every scope ticked by default, shows its secret once, and lists it without it', async () => {
    const { browser, accountId } = await signedInOwner();
    const form = await browser.get('/keys');
    expect(form.text).toContain('Todavía no hay claves');
    expect(form.html.match(/type="checkbox" name="scopes" value="[a-z:]+" checked/g)).toHaveLength(5);

    const { answer, secret } = await createKey(browser, { name: 'servidor' });
    expect(answer.status).toBe(201);
    expect(secret).toMatch(/^sk_test_/);
    expect(answer.text).toContain('no la vamos a mostrar nunca más');
    expect(answer.headers.get('cache-control')).toBe('no-store');

    const listed = await browser.get('/keys');
    expect(listed.text).toContain('servidor');
    expect(listed.text).toContain('Prueba');
    expect(listed.html).not.toContain(secret);
    expect(listed.html).not.toMatch(/sk_test_/);

    // The key is real, and the API refuses it while the account waits for approval.
    const refused = await api('GET', '/v1/verification-sessions', { key: secret! });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('account_inactive');
    // Approval reaches the gateway's cached resolution by the keys service's event, within a second.
    await dashboard.platform.call('approveAccount', { id: accountId });
    const approvedAt = Date.now();
    const allowed = await waitFor(
      async () => {
        const answer = await api('GET', '/v1/verification-sessions', { key: secret! });
        return answer.status === 200 ? answer : undefined;
      },
      5000,
      25,
    );
    expect(allowed.status).toBe(200);
    expect(Date.now() - approvedAt).toBeLessThan(2000);
  });

  it('gives a key only the scopes ticked, and the API enforces them', async () => {
    const { browser, accountId } = await signedInOwner();
    await dashboard.platform.call('approveAccount', { id: accountId });
    const { answer, secret } = await createKey(browser, { name: 'solo lectura', scopes: ['sessions:read'] });
    expect(answer.status).toBe(201);
    expect((await api('GET', '/v1/verification-sessions', { key: secret! })).status).toBe(200);
    const write = await api('POST', '/v1/webhook-endpoints', {
      key: secret!,
      body: { url: 'https://example.com/hook', events: [] },
    });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('insufficient_scope');
  });

  it('refuses a key with no scope, no name, or live mode before approval, saying why', async () => {
    const { browser } = await signedInOwner();
    const noScope = await createKey(browser, { scopes: [] });
    expect(noScope.answer.status).toBe(422);
    expect(noScope.answer.text).toContain('Completá este dato');
    const noName = await createKey(browser, { name: '  ' });
    expect(noName.answer.status).toBe(422);
    const live = await createKey(browser, { mode: 'live' });
    expect(live.answer.status).toBe(422);
    expect(live.answer.text).toContain('Las claves reales se habilitan cuando aprobamos la cuenta');
    expect((await browser.get('/keys')).text).toContain('Todavía no hay claves');
  });

  it('creates one key when the same form is sent eight times at once', async () => {
    const { browser } = await signedInOwner();
    const page = await browser.get('/keys');
    const nonce = /name="nonce" value="([^"]+)"/.exec(page.html)![1]!;
    const body = new URLSearchParams({
      _csrf: page.csrfToken(),
      nonce,
      name: 'una vez',
      mode: 'test',
      scopes: 'usage:read',
    }).toString();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        browser.request('POST', '/keys', body, { 'content-type': 'application/x-www-form-urlencoded' }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.find((answer) => answer.status === 409)!.text).toContain('Ese formulario ya se envió');
    const listed = await browser.get('/keys');
    expect(listed.html.match(/<tr/g)).toHaveLength(2); // the header and the one key
  });

  it('revokes after a confirmation; the key stays listed and the API refuses it', async () => {
    const { browser, accountId } = await signedInOwner();
    await dashboard.platform.call('approveAccount', { id: accountId });
    const { answer, secret } = await createKey(browser, { name: 'a revocar' });
    const keyId = /key_[0-9A-Z]{26}/.exec(answer.html)![0];
    const confirm = await browser.get(`/keys/${keyId}/revoke`);
    expect(confirm.text).toContain('¿Revocar la clave «a revocar»?');
    const revoked = await browser.post(`/keys/${keyId}/revoke`, {}, confirm);
    expect(revoked.status).toBe(303);
    const listed = await browser.get(revoked.location!);
    expect(listed.text).toContain('Revocaste la clave «a revocar»');
    expect(listed.text).toContain('revocada el');
    const refused = await api('GET', '/v1/verification-sessions', { key: secret! });
    expect([refused.status, refused.text]).toEqual([403, '{"message":"Forbidden"}']); // the contract's answer to a revoked key
    expect((await browser.post(`/keys/${keyId}/revoke`, {}, listed)).status).toBe(303); // again: nothing more happens
  });

  it("answers another account's key id as not found", async () => {
    const first = await signedInOwner();
    const { answer } = await createKey(first.browser, { name: 'ajena' });
    const keyId = /key_[0-9A-Z]{26}/.exec(answer.html)![0];
    const other = await signedInOwner();
    expect((await other.browser.get(`/keys/${keyId}/revoke`)).status).toBe(404);
    const page = await other.browser.get('/keys');
    expect((await other.browser.post(`/keys/${keyId}/revoke`, {}, page)).status).toBe(404);
    expect((await first.browser.get('/keys')).text).toContain('activa');
  });
});

describe('roles, enforced on the server', () => {
  it.each([
    ['owner', true],
    ['developer', true],
    ['viewer', false],
  ] as const)('%s: sees keys; may create and revoke: %s', async (role, mayWrite) => {
    const owner = await signedInOwner();
    const { answer } = await createKey(owner.browser, { name: 'del dueño' });
    const keyId = /key_[0-9A-Z]{26}/.exec(answer.html)![0];
    const { browser } = await signedInOwner(role);
    // The member joins the first account (invitations come later: the membership is written here).
    const { rows } = await dashboard.pool.query<{ user_id: string }>(
      `SELECT m.user_id FROM memberships m JOIN sign_in_sessions s ON s.user_id = m.user_id ORDER BY s.created_at DESC LIMIT 1`,
    );
    await dashboard.pool.query('UPDATE memberships SET account_id = $2 WHERE user_id = $1', [rows[0]!.user_id, owner.accountId]);
    await dashboard.pool.query('UPDATE sign_in_sessions SET account_id = $2 WHERE user_id = $1', [
      rows[0]!.user_id,
      owner.accountId,
    ]);

    const list = await browser.get('/keys');
    expect(list.status).toBe(200);
    expect(list.text).toContain('del dueño');
    expect(list.html.includes('action="/keys"')).toBe(mayWrite);

    const body = new URLSearchParams({
      _csrf: list.csrfToken(),
      nonce: `n${'x'.repeat(20)}${role}`,
      name: 'miembro',
      mode: 'test',
      scopes: 'usage:read',
    });
    const created = await browser.request('POST', '/keys', body.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(created.status).toBe(mayWrite ? 201 : 403);
    expect((await browser.get(`/keys/${keyId}/revoke`)).status).toBe(mayWrite ? 200 : 403);
    const revoked = await browser.post(`/keys/${keyId}/revoke`, {}, list);
    expect(revoked.status).toBe(mayWrite ? 303 : 403);
  });
});

describe('rolling a key', () => {
  it('makes a replacement with the same scopes, shown once; the old key works until the chosen delay, then the gateway refuses it', async () => {
    const { browser, accountId } = await signedInOwner();
    await dashboard.platform.call('approveAccount', { id: accountId });
    const { answer, secret: oldSecret } = await createKey(browser, { name: 'a rotar', scopes: ['sessions:read', 'usage:read'] });
    const oldId = /key_[0-9A-Z]{26}/.exec(answer.html)![0];
    expect((await api('GET', '/v1/verification-sessions', { key: oldSecret! })).status).toBe(200);

    const confirm = await browser.get(`/keys/${oldId}/revoke`);
    const rolled = await browser.post(`/keys/${oldId}/roll`, { delay: '3600' }, confirm);
    expect(rolled.status).toBe(201);
    expect(rolled.text).toContain('La clave anterior sigue funcionando hasta el');
    const newSecret = /value="(sk_test_[A-Za-z0-9_-]+)"/.exec(rolled.html)![1]!;
    const newId = /key_[0-9A-Z]{26}/.exec(rolled.html)![0];
    expect(newId).not.toBe(oldId);
    const keys = (await dashboard.platform.call('listApiKeys', { id: accountId })).data;
    expect(keys.find((key) => key.id === newId)!.scopes).toEqual(['sessions:read', 'usage:read']);
    expect(keys.find((key) => key.id === oldId)!.revokes_at).not.toBeNull();
    expect((await browser.get('/keys')).text).toContain('se revoca el');
    expect((await api('GET', '/v1/verification-sessions', { key: oldSecret! })).status).toBe(200);
    expect((await api('GET', '/v1/verification-sessions', { key: newSecret })).status).toBe(200);

    // Rolled once: the old key is not rolled again.
    expect((await browser.post(`/keys/${oldId}/roll`, { delay: '0' }, confirm)).status).toBe(409);

    // Its hour passes (moved in the keys service's table). A gateway that resolved the key while its
    // instant was ahead refuses it from that instant out of its cache, without a new lookup: the table is
    // put back meanwhile, and a lookup would let the key through.
    const db = new pg.Client({ connectionString: testEnv().databaseUrl });
    await db.connect();
    const gateway = await startServiceFromEnv('gateway', { TRUSTED_PROXIES: '127.0.0.1,::1' });
    try {
      await db.query(`UPDATE keys.api_keys SET revokes_at = now() + interval '2 seconds' WHERE id = $1`, [oldId]);
      expect((await api('GET', '/v1/verification-sessions', { key: oldSecret!, baseUrl: gateway.url })).status).toBe(200);
      await db.query(`UPDATE keys.api_keys SET revokes_at = NULL WHERE id = $1`, [oldId]);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const refusedFromCache = await api('GET', '/v1/verification-sessions', { key: oldSecret!, baseUrl: gateway.url });
      expect(refusedFromCache.status).toBe(403);
      expect(refusedFromCache.text).toBe('{"message":"Forbidden"}');
    } finally {
      await gateway.stop();
    }

    // The keys service resolves it as revoked once its instant is past, and a new gateway refuses it.
    try {
      await db.query(`UPDATE keys.api_keys SET revokes_at = now() - interval '1 second' WHERE id = $1`, [oldId]);
    } finally {
      await db.end();
    }
    const fresh = await startServiceFromEnv('gateway', { TRUSTED_PROXIES: '127.0.0.1,::1' });
    try {
      const refused = await api('GET', '/v1/verification-sessions', { key: oldSecret!, baseUrl: fresh.url });
      expect(refused.status).toBe(403);
      expect(refused.text).toBe('{"message":"Forbidden"}');
      expect((await api('GET', '/v1/verification-sessions', { key: newSecret, baseUrl: fresh.url })).status).toBe(200);
    } finally {
      await fresh.stop();
    }

    // A roll with no delay revokes at once.
    const now = await browser.post(`/keys/${newId}/roll`, { delay: '0' }, await browser.get(`/keys/${newId}/revoke`));
    expect(now.text).toContain('La clave anterior quedó revocada');
    // The revocation reaches the gateway's cached resolution by its event, within a second (as the approval above).
    const revoked = await waitFor(
      async () => {
        const answer = await api('GET', '/v1/verification-sessions', { key: newSecret });
        return answer.status === 403 ? answer : undefined;
      },
      5000,
      25,
    );
    expect(revoked.status).toBe(403);
    expect((await browser.post(`/keys/${newId}/roll`, { delay: '5' }, now)).status).toBe(422);
  });
});
