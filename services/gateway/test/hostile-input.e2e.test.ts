import { api, buildTenant } from '@idv/testkit';

/**
 * Issue 9, items 4 and 6: input PostgreSQL cannot store, and cursors a client made up, used to reach
 * SQL and answer 500. Both must be refused where they enter: 422 `validation_failed` for text with
 * NUL or unpaired surrogates, 422 `invalid_cursor` for any cursor the service did not issue.
 */

const UNSTORABLE = ['nul \u0000 inside', '\u0000', 'lone high \ud800', 'lone low \udfff end'];

type Tenant = Awaited<ReturnType<typeof buildTenant>>;

function expectRefused(response: { status: number; body: any }, path: string) {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status: 422, code: 'validation_failed' });
  expect(response.body.errors).toEqual(
    expect.arrayContaining([{ path, message: 'must not contain NUL or unpaired surrogate characters' }]),
  );
}

describe('text the store cannot keep', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await buildTenant({ tokens: 10 });
  });

  it.each(UNSTORABLE)(
    'when external_ref is %j, then creating a session is 422 validation_failed, in both modes and with a key',
    async (ref) => {
      for (const key of [tenant.testKey, tenant.liveKey]) {
        const response = await api('POST', '/v1/verification-sessions', {
          key,
          body: { project_id: tenant.project.id, external_ref: ref },
          headers: { 'idempotency-key': `unstorable-${ref.length}-${key.slice(3, 7)}` },
        });
        expectRefused(response, 'external_ref');
      }
    },
  );

  it('when external_ref has a paired surrogate (an emoji), then the session is created and keeps it', async () => {
    const response = await api('POST', '/v1/verification-sessions', {
      key: tenant.testKey,
      body: { project_id: tenant.project.id, external_ref: 'pedido 😀 42' },
    });
    expect(response.status).toBe(201);
    expect(response.body.external_ref).toBe('pedido 😀 42');
  });

  it.each(UNSTORABLE)(
    'when a webhook endpoint description is %j, then POST and PUT are 422 validation_failed',
    async (description) => {
      const created = await api('POST', '/v1/webhook-endpoints', {
        key: tenant.testKey,
        body: { url: 'https://example.com/hooks', events: ['test'], description },
      });
      expectRefused(created, 'description');
      const endpoint = await api('POST', '/v1/webhook-endpoints', {
        key: tenant.testKey,
        body: { url: 'https://example.com/hooks', events: ['test'] },
      });
      expect(endpoint.status).toBe(201);
      const updated = await api('PUT', `/v1/webhook-endpoints/${endpoint.body.id}`, {
        key: tenant.testKey,
        body: { description },
      });
      expectRefused(updated, 'description');
    },
  );

  it.each(['https://example.com/\u0000', 'https://example.com/a\ud800b', 'https://exa\u0000mple.com/'])(
    'when a webhook endpoint url is %j, then POST and PUT are 422 validation_failed',
    async (url) => {
      const created = await api('POST', '/v1/webhook-endpoints', { key: tenant.testKey, body: { url, events: ['test'] } });
      expectRefused(created, 'url');
      const endpoint = await api('POST', '/v1/webhook-endpoints', {
        key: tenant.testKey,
        body: { url: 'https://example.com/hooks', events: ['test'] },
      });
      const updated = await api('PUT', `/v1/webhook-endpoints/${endpoint.body.id}`, { key: tenant.testKey, body: { url } });
      expectRefused(updated, 'url');
    },
  );
});

describe('cursors a client made up', () => {
  let tenant: Tenant;
  const real: Record<string, string> = {};
  const LISTS = ['/v1/verification-sessions', '/v1/webhook-endpoints', '/v1/webhook-deliveries'] as const;

  beforeAll(async () => {
    tenant = await buildTenant();
    const key = tenant.testKey;
    for (let i = 0; i < 2; i++) {
      expect((await api('POST', '/v1/verification-sessions', { key, body: { project_id: tenant.project.id } })).status).toBe(201);
      const endpoint = await api('POST', '/v1/webhook-endpoints', {
        key,
        body: { url: 'http://127.0.0.1:9/hooks', events: ['test'] },
      });
      expect(endpoint.status).toBe(201);
    }
    for (const list of LISTS.slice(0, 2)) {
      const page = await api('GET', `${list}?limit=1`, { key });
      real[list] = page.body.next_cursor;
    }
  });

  const forged = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');

  it.each([
    ['the epoch as "0"', forged(['0', 'vs_a'])],
    ['a date that does not exist', forged(['2020-02-30', 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'])],
    ['a year past PostgreSQL', forged(['+275760-09-13T00:00:00.000Z', 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'])],
    ['a NUL in the id', forged(['2026-11-22T00:00:00.000Z', 'vs_\u0000'])],
    ['a NUL in the date', forged(['2026-11-22T00:00:00.000Z\u0000', 'whep_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'])],
    ['a well-formed position with no signature', forged(['2026-11-22T00:00:00.000Z', 'whd_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'])],
    ['garbage', 'not-a-cursor'],
  ])('when the cursor carries %s, then every list answers 422 invalid_cursor', async (_name, cursor) => {
    for (const list of LISTS) {
      const response = await api('GET', `${list}?cursor=${encodeURIComponent(cursor)}`, { key: tenant.testKey });
      expect({ list, status: response.status, code: response.body.code }).toEqual({ list, status: 422, code: 'invalid_cursor' });
    }
  });

  it('when a real cursor is edited, or sent to another list, then it is 422 invalid_cursor', async () => {
    const sessions = real['/v1/verification-sessions']!;
    const endpoints = real['/v1/webhook-endpoints']!;
    const edited = `${sessions.slice(0, 5)}${sessions[5] === 'A' ? 'B' : 'A'}${sessions.slice(6)}`;
    for (const [list, cursor] of [
      ['/v1/verification-sessions', edited],
      ['/v1/verification-sessions', endpoints],
      ['/v1/webhook-endpoints', sessions],
      ['/v1/webhook-deliveries', endpoints],
    ] as const) {
      const response = await api('GET', `${list}?cursor=${cursor}`, { key: tenant.testKey });
      expect({ list, status: response.status, code: response.body.code }).toEqual({ list, status: 422, code: 'invalid_cursor' });
    }
  });

  it('when a cursor the service issued is sent back unchanged, then the next page follows', async () => {
    for (const list of LISTS.slice(0, 2)) {
      const response = await api('GET', `${list}?limit=1&cursor=${real[list]}`, { key: tenant.testKey });
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(1);
      expect(response.body.has_more).toBe(false);
    }
  });
});
