import { ALL_SESSION_EVENTS, call, createEndpoint, newTenant } from './support/harness';

describe('webhook endpoints API', () => {
  it('when an endpoint is created, then 201 returns the complete whsec_ secret once and GET never does', async () => {
    const tenant = await newTenant();
    const created = await call(tenant, 'POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['verification_session.approved', 'test'],
      description: 'main receiver',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'webhook_endpoint',
      url: 'http://127.0.0.1:9/hooks',
      events: ['verification_session.approved', 'test'],
      status: 'active',
      description: 'main receiver',
    });
    expect(created.body.id).toMatch(/^whep_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);

    const fetched = await call(tenant, 'GET', `/v1/webhook-endpoints/${created.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.secret).toBeUndefined();
    expect(fetched.text).not.toContain(created.body.secret);
    const list = await call(tenant, 'GET', '/v1/webhook-endpoints');
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([created.body.id]);
    expect(list.text).not.toContain('whsec_');
  });

  it('when the event list names an unknown type or is empty, then 422 validation_failed', async () => {
    const tenant = await newTenant();
    for (const events of [['verification_session.exploded'], []]) {
      const response = await call(tenant, 'POST', '/v1/webhook-endpoints', { url: 'https://example.com/h', events });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('validation_failed');
    }
  });

  it('when review_required and created are subscribed, then they are accepted', async () => {
    const tenant = await newTenant();
    const endpoint = await createEndpoint(tenant, 'https://example.com/h', [
      'verification_session.review_required',
      'verification_session.created',
    ]);
    expect(endpoint.id).toMatch(/^whep_/);
  });

  it('when the list is paginated, then pages follow newest first with an opaque cursor', async () => {
    const tenant = await newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createEndpoint(tenant, `https://example.com/${i}`)).id);
    const first = await call(tenant, 'GET', '/v1/webhook-endpoints?limit=2');
    expect(first.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    const second = await call(tenant, 'GET', `/v1/webhook-endpoints?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expect(second.body.has_more).toBe(false);
    expect(second.body.next_cursor).toBeUndefined();
    const bad = await call(tenant, 'GET', '/v1/webhook-endpoints?cursor=garbage');
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('invalid_cursor');
  });

  it('when PUT sends some fields, then only those change', async () => {
    const tenant = await newTenant();
    const endpoint = await createEndpoint(tenant, 'https://example.com/a');
    const updated = await call(tenant, 'PUT', `/v1/webhook-endpoints/${endpoint.id}`, {
      events: ['verification_session.canceled'],
      status: 'disabled',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      url: 'https://example.com/a',
      events: ['verification_session.canceled'],
      status: 'disabled',
    });
    expect(updated.body.secret).toBeUndefined();
  });

  it('when an endpoint is deleted, then 204 and it is gone', async () => {
    const tenant = await newTenant();
    const endpoint = await createEndpoint(tenant, 'https://example.com/a');
    expect((await call(tenant, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(204);
    expect((await call(tenant, 'GET', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await call(tenant, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
  });

  it('when the secret is rotated, then the new complete secret is returned once and differs', async () => {
    const tenant = await newTenant();
    const endpoint = await createEndpoint(tenant, 'https://example.com/a');
    const rotated = await call(tenant, 'POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
  });

  it("when another account's endpoint or delivery id is used, then 404 not_found everywhere", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const endpoint = await createEndpoint(owner, 'https://example.com/a');
    const paths: Array<[string, string, unknown?]> = [
      ['GET', `/v1/webhook-endpoints/${endpoint.id}`],
      ['PUT', `/v1/webhook-endpoints/${endpoint.id}`, { description: 'mine now' }],
      ['DELETE', `/v1/webhook-endpoints/${endpoint.id}`],
      ['POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`],
      ['POST', `/v1/webhook-endpoints/${endpoint.id}/test`],
      ['GET', `/v1/webhook-deliveries?endpoint=${endpoint.id}`],
      ['GET', '/v1/webhook-deliveries/whd_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'],
      ['POST', '/v1/webhook-deliveries/whd_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6/redeliver'],
    ];
    for (const [method, path, body] of paths) {
      const response = await call(other, method, path, body);
      expect([path, response.status, response.body.code]).toEqual([path, 404, 'not_found']);
    }
    expect((await call(owner, 'GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.description).toBe('test receiver');
  });

  it('when a key lacks webhooks:write, then creation is 403 insufficient_scope', async () => {
    const tenant = await newTenant();
    const { buildKey } = await import('@idv/testkit');
    const readOnly = await buildKey(tenant.accountId, 'test', ['webhooks:read']);
    const response = await call({ ...tenant, key: readOnly.secret }, 'POST', '/v1/webhook-endpoints', {
      url: 'https://example.com/h',
      events: ALL_SESSION_EVENTS,
    });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'webhooks:write' });
    expect((await call({ ...tenant, key: readOnly.secret }, 'GET', '/v1/webhook-endpoints')).status).toBe(200);
  });
});
