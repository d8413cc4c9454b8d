import { asId } from '@idv/contracts';
import jsQR from 'jsqr';
import pg from 'pg';
import { PNG } from 'pngjs';
import { api, buildKey, buildTenant, ops, testEnv, SIMPLE_CONFIG } from '@idv/testkit';
import { idempotencyLockKey } from '../src/domain/idempotency';
import { EventTap, createSession, internal, tenantWithSession, tokenOf } from './helpers';

const SESSION_SHAPE = /^vs_[0-9A-HJKMNP-TV-Z]{26}$/;
let tap: EventTap;
let db: pg.Pool;

beforeAll(async () => {
  tap = await EventTap.open();
  db = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
});
afterAll(async () => {
  await tap.close();
  await db.end();
});

describe('POST /v1/verification-sessions', () => {
  test('when a test key creates a session, then 201 with url, qr, expires_at, pending status and the active version', async () => {
    const { project, testKey } = await buildTenant();
    const before = Date.now();
    const res = await createSession(testKey, project.id, { external_ref: 'order-42', expires_in_hours: 2 });
    expect(res.status).toBe(201);
    const s = res.body;
    expect(s).toMatchObject({
      object: 'verification_session',
      status: 'pending',
      mode: 'test',
      project_id: project.id,
      config_version: 'cfg_00000001',
      external_ref: 'order-42',
    });
    expect(s.id).toMatch(SESSION_SHAPE);
    expect(s.url).toMatch(new RegExp(`^${testEnv().flowUrl}/l/lt_[A-Za-z0-9_-]{22,}$`));
    const token = tokenOf(s.url);
    expect(Buffer.from(token.slice(3), 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(s.qr).toEqual({
      svg: `${testEnv().gatewayUrl}/v1/qr/${token}.svg`,
      png: `${testEnv().gatewayUrl}/v1/qr/${token}.png`,
    });
    const ttl = Date.parse(s.expires_at) - before;
    const expected = 2 * 3600_000 * testEnv().timeScale;
    expect(ttl).toBeGreaterThan(expected - 5000);
    expect(ttl).toBeLessThan(expected + 5000);
    expect(s.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(s.result).toBeUndefined();
    expect(s.completed_at).toBeUndefined();
  });

  test('when the project has no configuration in the key mode, then 422 config_not_published (rule 1)', async () => {
    const { project, liveKey, testKey } = await buildTenant({ modes: ['test'], tokens: 5 });
    const res = await createSession(liveKey, project.id);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('config_not_published');
    expect((await createSession(testKey, project.id)).status).toBe(201);
  });

  test('when project_id does not exist or belongs to another account, then 422 validation_failed (rule 2)', async () => {
    const { testKey } = await buildTenant();
    const other = await buildTenant();
    for (const projectId of ['prj_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6', other.project.id]) {
      const res = await createSession(testKey, projectId);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors).toEqual([{ path: 'project_id', message: 'no such project' }]);
    }
  });

  test('when the body breaks its bounds, then 422 validation_failed naming the field', async () => {
    const { project, testKey } = await buildTenant();
    for (const [extra, path] of [
      [{ expires_in_hours: 0 }, 'expires_in_hours'],
      [{ expires_in_hours: 169 }, 'expires_in_hours'],
      [{ expires_in_hours: 1.5 }, 'expires_in_hours'],
      [{ external_ref: 'x'.repeat(256) }, 'external_ref'],
      [{ mode: 'live' }, '(root)'],
    ] as const) {
      const res = await createSession(testKey, project.id, extra);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const missing = await api('POST', '/v1/verification-sessions', { key: testKey, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].path).toBe('project_id');
  });

  test('when a live key creates a session, then one token is debited; a test key debits nothing (rule 7)', async () => {
    const { account, project, liveKey, testKey } = await buildTenant({ tokens: 3 });
    expect((await createSession(liveKey, project.id)).status).toBe(201);
    expect((await ops().balance(account.id)).balance).toBe(2);
    expect((await createSession(testKey, project.id)).status).toBe(201);
    expect((await ops().balance(account.id)).balance).toBe(2);
    const { rows } = await db.query('SELECT kind, tokens FROM sessions.balance_ledger WHERE account_id = $1 ORDER BY id', [
      account.id,
    ]);
    expect(rows).toEqual([
      { kind: 'credit', tokens: 3 },
      { kind: 'debit', tokens: 1 },
    ]);
  });

  test('when the balance is empty, then a live create is 402 insufficient_balance and creates nothing; test mode still works', async () => {
    const { account, project, liveKey, testKey } = await buildTenant();
    const res = await createSession(liveKey, project.id);
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('insufficient_balance');
    expect((await api('GET', '/v1/verification-sessions', { key: liveKey })).body.data).toEqual([]);
    expect((await createSession(testKey, project.id)).status).toBe(201);
    expect((await ops().balance(account.id)).balance).toBe(0);
  });
});

describe('Idempotency-Key', () => {
  test('when the same key and payload are sent again, then the stored response is returned and nothing is created or debited (rule 6)', async () => {
    const { account, project, liveKey } = await buildTenant({ tokens: 5 });
    const headers = { 'idempotency-key': 'order-1' };
    const first = await createSession(liveKey, project.id, { external_ref: 'a' }, headers);
    const second = await createSession(liveKey, project.id, { external_ref: 'a' }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect((await api('GET', '/v1/verification-sessions', { key: liveKey })).body.data).toHaveLength(1);
    expect((await ops().balance(account.id)).balance).toBe(4);
  });

  test('when the same key comes with a different payload, then 409 conflict (rule 3)', async () => {
    const { project, testKey } = await buildTenant();
    const headers = { 'idempotency-key': 'k-diff' };
    expect((await createSession(testKey, project.id, { external_ref: 'a' }, headers)).status).toBe(201);
    const res = await createSession(testKey, project.id, { external_ref: 'b' }, headers);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
  });

  test('when the first request with a key is still in flight, then the same key answers 409 conflict', async () => {
    const { account, project, testKey, testKeyId } = await buildTenant();
    // A transaction holding the key's in-flight lock, exactly as a create under way does.
    const holder = await db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1::bigint)', [
        idempotencyLockKey({
          accountId: asId('account', account.id),
          mode: 'test',
          apiKeyId: asId('apiKey', testKeyId),
          key: 'in-flight',
        }),
      ]);
      const res = await createSession(testKey, project.id, {}, { 'idempotency-key': 'in-flight' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('conflict');
      expect(res.body.detail).toMatch(/in flight/);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    // Once it ends, the key is usable.
    expect((await createSession(testKey, project.id, {}, { 'idempotency-key': 'in-flight' })).status).toBe(201);
  });

  test('when the same key is used in test and live, or by two keys of one account, then each creates its own session (rule 5)', async () => {
    const { account, project, testKey, liveKey } = await buildTenant({ tokens: 2 });
    const otherTestKey = (await buildKey(account.id, 'test')).secret;
    const headers = { 'idempotency-key': 'shared' };
    const ids = new Set<string>();
    for (const key of [testKey, liveKey, otherTestKey]) {
      const res = await createSession(key, project.id, {}, headers);
      expect(res.status).toBe(201);
      ids.add(res.body.id);
    }
    expect(ids.size).toBe(3);
  });

  test('when a request failed, then a retry with the same key runs again instead of replaying the failure', async () => {
    const { account, project, liveKey } = await buildTenant();
    const headers = { 'idempotency-key': 'retry-after-topup' };
    expect((await createSession(liveKey, project.id, {}, headers)).status).toBe(402);
    await ops().creditBalance(account.id, 1);
    expect((await createSession(liveKey, project.id, {}, headers)).status).toBe(201);
  });

  test('when the Idempotency-Key is longer than 255 characters, then 422 validation_failed; 255 is accepted', async () => {
    const { project, testKey } = await buildTenant();
    expect((await createSession(testKey, project.id, {}, { 'idempotency-key': 'k'.repeat(256) })).status).toBe(422);
    expect((await createSession(testKey, project.id, {}, { 'idempotency-key': 'k'.repeat(255) })).status).toBe(201);
  });

  test('when 20 identical requests race, then exactly one session is created and one token debited', async () => {
    const { account, project, liveKey } = await buildTenant({ tokens: 5 });
    const headers = { 'idempotency-key': 'race' };
    const results = await Promise.all(Array.from({ length: 20 }, () => createSession(liveKey, project.id, {}, headers)));
    const created = results.filter((r) => r.status === 201);
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'conflict'))).toBe(true);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect((await api('GET', '/v1/verification-sessions', { key: liveKey })).body.data).toHaveLength(1);
    expect((await ops().balance(account.id)).balance).toBe(4);
    // Once the first completed, every retry gets the stored response.
    const retry = await createSession(liveKey, project.id, {}, headers);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(created[0]!.body.id);
  });
});

describe('GET /v1/verification-sessions/{id} and list', () => {
  test('when the owner reads its session, then 200 with url while pending; another account or mode gets 404 not_found', async () => {
    const { session, liveKey, testKey } = await tenantWithSession();
    const own = await api('GET', `/v1/verification-sessions/${session.id}`, { key: testKey });
    expect(own.status).toBe(200);
    expect(own.body).toEqual(session);
    const stranger = await buildTenant();
    for (const key of [stranger.testKey, liveKey]) {
      const res = await api('GET', `/v1/verification-sessions/${session.id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  test('when listing, then only the key mode is listed newest first, with limit bounds and cursor errors', async () => {
    const { project, testKey, liveKey } = await buildTenant({ tokens: 1 });
    const a = (await createSession(testKey, project.id)).body;
    const b = (await createSession(testKey, project.id)).body;
    await createSession(liveKey, project.id);
    const page = await api('GET', '/v1/verification-sessions?limit=1', { key: testKey });
    expect(page.body).toMatchObject({ object: 'list', has_more: true });
    expect(page.body.data.map((s: { id: string }) => s.id)).toEqual([b.id]);
    const next = await api('GET', `/v1/verification-sessions?limit=1&cursor=${page.body.next_cursor}`, { key: testKey });
    expect(next.body.data.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expect(next.body.has_more).toBe(false);
    expect(next.body.next_cursor).toBeUndefined();
    for (const limit of ['0', '101', 'x']) {
      const res = await api('GET', `/v1/verification-sessions?limit=${limit}`, { key: testKey });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
    const bad = await api('GET', '/v1/verification-sessions?cursor=not-a-cursor', { key: testKey });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('invalid_cursor');
    expect((await api('GET', '/v1/verification-sessions', { key: liveKey })).body.data).toHaveLength(1);
  });

  test('when a key lacks the scope, then 403 insufficient_scope', async () => {
    const { project, testKey } = await buildTenant({ scopes: ['sessions:read'] });
    const res = await createSession(testKey, project.id);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'sessions:write' });
    const usage = await api('GET', '/v1/usage?month=2026-11', { key: testKey });
    expect(usage.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'usage:read' });
  });
});

describe('POST /v1/verification-sessions/{id}/cancel', () => {
  test('when a pending session is canceled, then canceled with completed_at, the canceled event, and a second cancel is 409 session_terminal', async () => {
    const { session, testKey, account } = await tenantWithSession();
    const res = await api('POST', `/v1/verification-sessions/${session.id}/cancel`, { key: testKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: session.id, status: 'canceled' });
    expect(res.body.completed_at).toBeDefined();
    expect(res.body.result).toBeUndefined();
    expect(res.body.url).toBeUndefined();
    const again = await api('POST', `/v1/verification-sessions/${session.id}/cancel`, { key: testKey });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('session_terminal');
    const [event] = await tap.waitFor(session.id, 1);
    expect(event).toMatchObject({
      type: 'verification_session.canceled',
      data: {
        account_id: account.id,
        session: { id: session.id, status: 'canceled' },
        webhook_events: SIMPLE_CONFIG.options.webhookEvents,
        options: { documentData: false, verifiedChannels: false, formData: false, evidenceLinks: false },
      },
    });
    expect(event!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(event!.messageId).toBe(event!.id);
  });

  test('when another account cancels the session, then 404 and the session is unchanged', async () => {
    const { session, testKey } = await tenantWithSession();
    const stranger = await buildTenant();
    expect((await api('POST', `/v1/verification-sessions/${session.id}/cancel`, { key: stranger.testKey })).status).toBe(404);
    expect((await api('GET', `/v1/verification-sessions/${session.id}`, { key: testKey })).body.status).toBe('pending');
  });
});

describe('QR images', () => {
  test('when the PNG is decoded, then it holds the session url; the SVG is an SVG image', async () => {
    const { session } = await tenantWithSession();
    const png = await fetch(session.qr.png);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const image = PNG.sync.read(Buffer.from(await png.arrayBuffer()));
    const decoded = jsQR(Uint8ClampedArray.from(image.data), image.width, image.height);
    expect(decoded?.data).toBe(session.url);
    const svg = await fetch(session.qr.svg);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await svg.text()).toMatch(/<svg[\s\S]*<\/svg>/);
  });

  test('when the token is unknown, then 404; once the link is redeemed, then 410 link_redeemed', async () => {
    const { session } = await tenantWithSession();
    expect((await api('GET', '/v1/qr/lt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.png')).status).toBe(404);
    expect((await internal('POST', `/internal/links/${tokenOf(session.url)}/redeem`)).status).toBe(200);
    for (const url of [session.qr.png, session.qr.svg]) {
      const res = await api('GET', new URL(url).pathname);
      expect(res.status).toBe(410);
      expect(res.body.code).toBe('link_redeemed');
    }
  });
});

describe('usage', () => {
  const month = new Date().toISOString().slice(0, 7);

  test('when sessions were created in a month, then usage counts them per mode and status with tokens debited', async () => {
    const { project, testKey, liveKey } = await buildTenant({ tokens: 5 });
    await createSession(liveKey, project.id);
    const canceled = (await createSession(testKey, project.id)).body;
    await createSession(testKey, project.id);
    await api('POST', `/v1/verification-sessions/${canceled.id}/cancel`, { key: testKey });
    const res = await api('GET', `/v1/usage?month=${month}`, { key: testKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'usage',
      month,
      sessions: { test: { pending: 1, canceled: 1, total: 2 }, live: { pending: 1, total: 1 } },
      tokens_debited: 1,
    });
    const empty = await api('GET', '/v1/usage?month=2020-01', { key: testKey });
    expect(empty.body.tokens_debited).toBe(0);
    expect((await api('GET', '/v1/usage?month=2026-13', { key: testKey })).status).toBe(422);
  });

  test('when the CSV is exported, then one row per session with ids, states and billing, and no personal data', async () => {
    const { project, testKey, liveKey } = await buildTenant({ tokens: 1 });
    const live = (await createSession(liveKey, project.id, { external_ref: 'juan.perez@example.com' })).body;
    const test = (await createSession(testKey, project.id)).body;
    const res = await api('GET', `/v1/usage/sessions.csv?month=${month}`, { key: testKey });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]).toBe('session_id,mode,project_id,config_version,status,outcome,created_at,completed_at,tokens_debited');
    expect(lines.slice(1)).toEqual([
      `${live.id},live,${project.id},cfg_00000002,pending,,${live.created_at},,1`,
      `${test.id},test,${project.id},cfg_00000001,pending,,${test.created_at},,0`,
    ]);
    expect(res.text).not.toContain('juan.perez');
    expect(res.text).not.toContain('lt_');
  });
});
