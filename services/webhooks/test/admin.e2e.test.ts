import { Receiver, behaviours, receiversOfThisFile } from '@idv/testkit';
import {
  EventPublisher,
  call,
  createEndpoint,
  deliveries,
  eventually,
  messagesOf,
  newTenant,
  type Tenant,
} from './support/harness';
import { verifySignature } from './support/verify';

const publisher = new EventPublisher();
const receiver = receiversOfThisFile(() => behaviours.ok());

afterAll(() => publisher.close());

async function sendTest(tenant: Tenant, endpointId: string) {
  return call(tenant, 'POST', `/v1/webhook-endpoints/${endpointId}/test`);
}

async function logOf(tenant: Tenant, endpointId: string, count: number) {
  return eventually(
    async () => {
      const entries = await deliveries(tenant, endpointId);
      return entries.length >= count ? entries : undefined;
    },
    15_000,
    `${count} delivery log entries`,
  );
}

describe('test event', () => {
  it('when an endpoint is tested, then 202 {queued:true} and one signed test event arrives, logged', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    const response = await sendTest(tenant, endpoint.id);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ queued: true });
    const hit = await eventually(() => target.hits[0], 15_000, 'test event');
    expect(hit.body).toMatchObject({
      object: 'event',
      api_version: 'v1',
      type: 'test',
      data: { object: { object: 'webhook_test', endpoint_id: endpoint.id } },
    });
    expect(hit.body.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(hit.headers['x-service-event-type']).toBe('test');
    expect(verifySignature(hit.headers['x-service-signature'] as string, hit.raw, endpoint.secret)).toBe(true);
    const [entry] = await logOf(tenant, endpoint.id, 1);
    expect(entry).toMatchObject({ event_type: 'test', status: 'succeeded', http_status: 200, attempt: 1 });
  });

  it('when the test event fails, then it is logged as failed once and never retried', async () => {
    const tenant = await newTenant();
    const target = await receiver(behaviours.status(500));
    const endpoint = await createEndpoint(tenant, target.url);
    await sendTest(tenant, endpoint.id);
    const [entry] = await logOf(tenant, endpoint.id, 1);
    expect(entry).toMatchObject({ event_type: 'test', status: 'failed', http_status: 500, error: 'http_status', attempt: 1 });
    expect(entry.failure_reason).toContain('500');
    // The attempt is logged in the statement that moves its message on: closed, the message is never
    // claimed again; a retry would have left it pending, due again (after 0.5 s, 10 s scaled).
    expect(await messagesOf(endpoint.id)).toEqual([{ kind: 'test', status: 'failed', attempts: 1 }]);
    expect(target.hits).toHaveLength(1);
    expect(await deliveries(tenant, endpoint.id)).toHaveLength(1);
  });
});

describe('failure classification (single-shot test events against real receivers)', () => {
  const closedPort = async () => {
    const r = await Receiver.start();
    const url = r.url;
    await r.close();
    return url;
  };
  it.each<[string, () => Promise<string>, Partial<Record<string, unknown>>]>([
    ['500', async () => (await receiver(behaviours.status(500))).url, { error: 'http_status', http_status: 500 }],
    ['302 (never followed)', async () => (await receiver(behaviours.redirect())).url, { error: 'redirect', http_status: 302 }],
    ['a hang past the timeout', async () => (await receiver(behaviours.hang())).url, { error: 'timeout', http_status: null }],
    [
      'a body that ends after the timeout',
      async () => (await receiver(behaviours.slowBody(1500))).url,
      { error: 'timeout', http_status: 200 },
    ],
    [
      'a closed connection',
      async () => (await receiver(behaviours.close())).url,
      { error: 'connection_reset', http_status: null },
    ],
    ['a refused connection', closedPort, { error: 'connection_refused', http_status: null }],
  ])('when the receiver gives %s, then the attempt is failed with its error marker', async (_name, url, expected) => {
    const tenant = await newTenant();
    const endpoint = await createEndpoint(tenant, await url());
    const started = Date.now();
    await sendTest(tenant, endpoint.id);
    const [entry] = await logOf(tenant, endpoint.id, 1);
    expect(entry).toMatchObject({ status: 'failed', ...expected });
    expect(entry.failure_reason).toEqual(expect.any(String));
    // 10 s scaled by TIME_SCALE=0.05 is 500 ms: a timeout never waits much longer.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('when the receiver answers slowly but within the timeout, then the attempt succeeds', async () => {
    const tenant = await newTenant();
    const target = await receiver(behaviours.slow(150));
    const endpoint = await createEndpoint(tenant, target.url);
    await sendTest(tenant, endpoint.id);
    const [entry] = await logOf(tenant, endpoint.id, 1);
    expect(entry).toMatchObject({ status: 'succeeded', http_status: 200 });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(140);
  });

  it('when the receiver redirects, then the Location is not requested', async () => {
    const tenant = await newTenant();
    const other = await receiver();
    const target = await receiver((_hit, res) => res.writeHead(301, { location: other.url }).end());
    const endpoint = await createEndpoint(tenant, target.url);
    await sendTest(tenant, endpoint.id);
    await logOf(tenant, endpoint.id, 1);
    expect(target.hits).toHaveLength(1);
    expect(other.hits).toHaveLength(0);
  });
});

describe('redeliver', () => {
  it('when a delivery is redelivered, then a new real attempt of the same event arrives, not deduplicated', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    const { eventId } = await publisher.publish(tenant, 'verification_session.canceled');
    const [first] = await logOf(tenant, endpoint.id, 1);
    const response = await call(tenant, 'POST', `/v1/webhook-deliveries/${first.id}/redeliver`);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ queued: true });
    await eventually(() => target.hits.length === 2, 15_000, 'redelivery');
    expect(target.hits.map((h) => h.body.id)).toEqual([eventId, eventId]);
    expect(target.hits[1]!.body.created_at >= target.hits[0]!.body.created_at).toBe(true);
    const log = await logOf(tenant, endpoint.id, 2);
    expect(log.map((e) => [e.event_id, e.status])).toEqual([
      [eventId, 'succeeded'],
      [eventId, 'succeeded'],
    ]);
  });

  it('when a redelivery fails, then it is logged failed and not retried', async () => {
    const tenant = await newTenant();
    const target = await receiver(behaviours.ok());
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    await publisher.publish(tenant, 'verification_session.canceled');
    const [first] = await logOf(tenant, endpoint.id, 1);
    target.behaviour = behaviours.status(503);
    await call(tenant, 'POST', `/v1/webhook-deliveries/${first.id}/redeliver`);
    const log = await logOf(tenant, endpoint.id, 2);
    expect(log[1]).toMatchObject({ status: 'failed', http_status: 503, attempt: 1 });
    // Logged in the statement that moved the redelivery on: closed, it is never claimed again.
    expect((await messagesOf(endpoint.id)).map(({ kind, status }) => ({ kind, status }))).toEqual([
      { kind: 'event', status: 'succeeded' },
      { kind: 'redeliver', status: 'failed' },
    ]);
    expect(target.hits).toHaveLength(2);
  });
});

describe('test and redeliver quota', () => {
  it('when an account makes an 11th test or redeliver within a minute, then 429 rate_limited with Retry-After, rejected ones counting', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    await publisher.publish(tenant, 'verification_session.canceled');
    const [first] = await logOf(tenant, endpoint.id, 1);

    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await sendTest(tenant, endpoint.id)).status);
    for (let i = 0; i < 5; i++)
      statuses.push((await call(tenant, 'POST', `/v1/webhook-deliveries/${first.id}/redeliver`)).status);
    expect(statuses).toEqual(Array(10).fill(202));

    const rejected = await sendTest(tenant, endpoint.id);
    expect(rejected.status).toBe(429);
    expect(rejected.body.code).toBe('rate_limited');
    expect(Number(rejected.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(rejected.headers['retry-after'])).toBeLessThanOrEqual(60);
    const rejectedRedeliver = await call(tenant, 'POST', `/v1/webhook-deliveries/${first.id}/redeliver`);
    expect(rejectedRedeliver.status).toBe(429);
    expect(rejectedRedeliver.body.code).toBe('rate_limited');

    // Another account is not affected.
    const other = await newTenant();
    const otherEndpoint = await createEndpoint(other, target.url);
    expect((await sendTest(other, otherEndpoint.id)).status).toBe(202);
    // Exactly the 10 accepted ones were sent: 1 event + 5 tests + 5 redeliveries.
    await eventually(() => target.hits.filter((h) => h.body.data.object.endpoint_id !== otherEndpoint.id).length === 11, 15_000);
  });
});
