import { eventId } from '@idv/contracts';
import { behaviours, receiversOfThisFile, testEnv } from '@idv/testkit';
import {
  EventPublisher,
  SESSIONS_AVAILABLE,
  call,
  createAndCancelSession,
  createEndpoint,
  deliveredMarker,
  deliveries,
  emitCanceled,
  eventually,
  newTenant,
} from './support/harness';
import { verifySignature } from './support/verify';

const publisher = new EventPublisher();
const receiver = receiversOfThisFile(() => behaviours.ok());

afterAll(() => publisher.close());

describe('webhook delivery', () => {
  it('when a session is canceled, then the subscribed endpoint gets one signed envelope that verifies on the raw body', async () => {
    const tenant = await newTenant();
    const target = await receiver((_hit, res) => res.writeHead(200).end('RECEIVER-BODY-MARKER'));
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    const { sessionId, eventId: id } = await emitCanceled(tenant, publisher);

    const hit = await eventually(() => target.hits[0], 15_000, 'delivery');
    expect(verifySignature(hit.headers['x-service-signature'] as string, hit.raw, endpoint.secret)).toBe(true);
    expect(verifySignature(hit.headers['x-service-signature'] as string, `${hit.raw} `, endpoint.secret)).toBe(false);
    expect(hit.headers['x-service-signature']).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
    expect(hit.headers['x-service-event-id']).toBe(id);
    expect(hit.headers['x-service-event-type']).toBe('verification_session.canceled');
    expect(hit.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(hit.headers['user-agent']).toMatch(/^idv-webhooks\/\d+\.\d+\.\d+$/);
    expect(hit.body).toMatchObject({
      id,
      object: 'event',
      api_version: 'v1',
      type: 'verification_session.canceled',
      data: { object: { id: sessionId, object: 'verification_session', status: 'canceled', mode: 'test' } },
    });
    expect(id).toBe(eventId(tenant.accountId, sessionId, 'verification_session.canceled'));
    expect(Date.parse(hit.body.created_at)).toBeGreaterThan(Date.now() - 15_000);
    expect(hit.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const log = await eventually(async () => {
      const entries = await deliveries(tenant, endpoint.id);
      return entries.length === 1 ? entries : undefined;
    });
    expect(log[0]).toMatchObject({
      object: 'webhook_delivery',
      endpoint_id: endpoint.id,
      event_id: id,
      event_type: 'verification_session.canceled',
      attempt: 1,
      status: 'succeeded',
      http_status: 200,
      error: null,
      failure_reason: null,
    });
    expect(log[0].duration_ms).toBeGreaterThanOrEqual(0);
    const single = await call(tenant, 'GET', `/v1/webhook-deliveries/${log[0].id}`);
    expect(single.body).toEqual(log[0]);
    expect(single.text).not.toContain('RECEIVER-BODY-MARKER'); // the receiver's body is never in the public API
  });

  it('when three endpoints subscribe, then each gets the event once with the same deterministic id', async () => {
    const tenant = await newTenant();
    const targets = await Promise.all([receiver(), receiver(), receiver()]);
    const endpoints = await Promise.all(targets.map((t) => createEndpoint(tenant, t.url, ['verification_session.canceled'])));
    const { eventId: id } = await emitCanceled(tenant, publisher);
    await eventually(() => targets.every((t) => t.hits.length >= 1), 15_000, 'fan-out');
    for (const [i, t] of targets.entries()) {
      expect(t.hits).toHaveLength(1);
      expect(t.hits[0]!.body.id).toBe(id);
      expect(verifySignature(t.hits[0]!.headers['x-service-signature'] as string, t.hits[0]!.raw, endpoints[i]!.secret)).toBe(
        true,
      );
      expect(
        verifySignature(t.hits[0]!.headers['x-service-signature'] as string, t.hits[0]!.raw, endpoints[(i + 1) % 3]!.secret),
      ).toBe(false);
    }
  });

  it('when the broker redelivers the same domain event, then no second message is sent', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    const first = await publisher.publish(tenant, 'verification_session.canceled');
    await publisher.publish(tenant, 'verification_session.canceled', { sessionId: first.sessionId });
    const sentinel = await publisher.publish(tenant, 'verification_session.canceled');
    await eventually(() => target.hits.some((h) => h.body.id === sentinel.eventId), 15_000, 'sentinel delivery');
    await eventually(() => target.hits.length >= 2);
    expect(target.hits.filter((h) => h.body.id === first.eventId)).toHaveLength(1);
  });

  it('when a session is approved, then approved and completed arrive as two events with two ids', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    await createEndpoint(tenant, target.url, ['verification_session.approved', 'verification_session.completed']);
    const approved = await publisher.publish(tenant, 'verification_session.approved');
    const completed = await publisher.publish(tenant, 'verification_session.completed', { sessionId: approved.sessionId });
    await eventually(() => target.hits.length === 2, 15_000, 'two events');
    expect(new Set(target.hits.map((h) => h.body.id))).toEqual(new Set([approved.eventId, completed.eventId]));
    expect(approved.eventId).not.toBe(completed.eventId);
    expect(new Set(target.hits.map((h) => h.headers['x-service-event-type']))).toEqual(
      new Set(['verification_session.approved', 'verification_session.completed']),
    );
  });

  it('when the endpoint does not subscribe to the type, then it gets nothing while a subscribed one does', async () => {
    const tenant = await newTenant();
    const subscribed = await receiver();
    const other = await receiver();
    await createEndpoint(tenant, subscribed.url, ['verification_session.canceled']);
    const otherEndpoint = await createEndpoint(tenant, other.url, [
      'verification_session.approved',
      'verification_session.review_required',
    ]);
    await emitCanceled(tenant, publisher);
    await eventually(() => subscribed.hits.length === 1, 15_000, 'subscribed delivery');
    expect(other.hits).toHaveLength(0);
    expect(await deliveries(tenant, otherEndpoint.id)).toHaveLength(0);
  });

  (SESSIONS_AVAILABLE ? it : it.skip)(
    "when the session's frozen config does not fire the type, then no endpoint gets it even if subscribed",
    async () => {
      const tenant = await newTenant(undefined, ['verification_session.approved']);
      const target = await receiver();
      await createEndpoint(tenant, target.url, ['verification_session.canceled']);
      const filtered = await createAndCancelSession(tenant);
      // A new published version that fires canceled: only sessions bound to it notify.
      const { SIMPLE_CONFIG } = await import('@idv/testkit');
      await tenant.target.ops.publishConfig(tenant.projectId!, 'test', SIMPLE_CONFIG);
      const delivered = await createAndCancelSession(tenant);
      await eventually(() => target.hits.length >= 1, 15_000, 'delivery of the second session');
      const marker = await deliveredMarker(tenant, publisher, target);
      const ids = target.hits.map((h) => h.body.id).filter((id) => id !== marker);
      expect(ids).toEqual([delivered.eventId]);
      expect(ids).not.toContain(filtered.eventId);
    },
  );

  it('when the config layer omits the type (broker event), then nothing is queued', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    await createEndpoint(tenant, target.url, ['verification_session.canceled', 'verification_session.expired']);
    const filtered = await publisher.publish(tenant, 'verification_session.canceled', {
      webhookEvents: ['verification_session.approved'],
    });
    const sentinel = await publisher.publish(tenant, 'verification_session.expired');
    await eventually(() => target.hits.length >= 1, 15_000, 'sentinel');
    const marker = await deliveredMarker(tenant, publisher, target);
    const ids = target.hits.map((h) => h.body.id).filter((id) => id !== marker);
    expect(ids).toEqual([sentinel.eventId]);
    expect(ids).not.toContain(filtered.eventId);
  });

  it('when an endpoint is disabled, then it receives nothing until re-enabled', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    // Fanned out in the same statement as the disabled endpoint: once it has the event, so has the
    // disabled one's turn passed, and re-enabling cannot race the consumer.
    const witness = await receiver();
    await createEndpoint(tenant, witness.url, ['verification_session.canceled']);
    await call(tenant, 'PUT', `/v1/webhook-endpoints/${endpoint.id}`, { status: 'disabled' });
    const whileDisabled = await publisher.publish(tenant, 'verification_session.canceled');
    await eventually(() => witness.hits.some((h) => h.body.id === whileDisabled.eventId), 15_000, 'fan-out while disabled');
    await call(tenant, 'PUT', `/v1/webhook-endpoints/${endpoint.id}`, { status: 'active' });
    const after = await publisher.publish(tenant, 'verification_session.canceled');
    await eventually(() => target.hits.length >= 1, 15_000, 'delivery after re-enable');
    expect(target.hits.map((h) => h.body.id)).toEqual([after.eventId]);
  });

  it('when the secret is rotated, then the header carries one v1 per valid secret and both verify', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    const rotated = await call(tenant, 'POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    await emitCanceled(tenant, publisher);
    const hit = await eventually(() => target.hits[0], 15_000, 'delivery');
    const header = hit.headers['x-service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(header, hit.raw, rotated.body.secret)).toBe(true);
    expect(verifySignature(header, hit.raw, endpoint.secret)).toBe(true);
  });

  it('when the delivery log spans pages, then it pages newest first and each attempt is readable by id', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    for (let i = 0; i < 3; i++) await publisher.publish(tenant, 'verification_session.canceled');
    await eventually(async () => (await deliveries(tenant, endpoint.id)).length === 3, 15_000, '3 deliveries');
    const first = await call(tenant, 'GET', `/v1/webhook-deliveries?endpoint=${endpoint.id}&limit=2`);
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    const second = await call(
      tenant,
      'GET',
      `/v1/webhook-deliveries?endpoint=${endpoint.id}&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.has_more).toBe(false);
    const all = [...first.body.data, ...second.body.data];
    expect(all).toHaveLength(3);
    expect(all.map((d: { created_at: string }) => d.created_at)).toEqual(
      all
        .map((d: { created_at: string }) => d.created_at)
        .sort()
        .reverse(),
    );
    const unfiltered = await call(tenant, 'GET', '/v1/webhook-deliveries?limit=100');
    expect(unfiltered.body.data.map((d: { id: string }) => d.id).sort()).toEqual(all.map((d: { id: string }) => d.id).sort());
    expect((await call(tenant, 'GET', '/v1/webhook-deliveries?limit=0')).body.code).toBe('validation_failed');
  });

  it('when deliveries happen, then /metrics exposes outcomes, latency, waiting messages and open circuits', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    await publisher.publish(tenant, 'verification_session.canceled');
    await eventually(() => target.hits.length === 1, 15_000, 'a delivery');
    const response = await fetch(`${testEnv().webhooksUrl}/metrics`);
    const text = await response.text();
    expect(text).toMatch(/webhook_deliveries_total\{kind="event",outcome="succeeded",error="none"/);
    expect(text).toContain('webhook_attempt_duration_seconds_bucket');
    expect(text).toMatch(/webhook_messages_waiting\{[^}]*\} \d+/);
    expect(text).toMatch(/webhook_open_circuits\{[^}]*\} \d+/);
  });
});
