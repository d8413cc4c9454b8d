import { behaviours, receiversOfThisFile, type Receiver } from '@idv/testkit';
import { EventPublisher, call, createEndpoint, deliveries, eventually, newTenant, type Tenant } from './support/harness';

const TIME_SCALE = Number(process.env.TIME_SCALE ?? '0.05');
const FIRST_WAIT = 10_000 * TIME_SCALE;
const CIRCUIT_OPEN = 15 * 60 * 1000 * TIME_SCALE;

const publisher = new EventPublisher();
const receiver = receiversOfThisFile(() => behaviours.status(500));
afterAll(() => publisher.close());

const CANCELED = 'verification_session.canceled';

async function openCircuit(tenant: Tenant, target: Receiver, endpointId: string) {
  const events: string[] = [];
  for (let i = 0; i < 5; i++) events.push((await publisher.publish(tenant, CANCELED)).eventId);
  await eventually(() => target.hits.length >= 5, 15_000, '5 failures');
  const skipped = await eventually(
    async () => {
      const log = await deliveries(tenant, endpointId);
      const open = log.filter((e) => e.error === 'circuit_breaker_open');
      return open.length >= 5 ? open : undefined;
    },
    15_000,
    'attempts skipped by the open circuit',
  );
  return { events, skipped };
}

describe('circuit breaker', () => {
  it('when 5 consecutive deliveries fail, then due attempts send no POST, are logged circuit_breaker_open and re-queued with the same wait', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, [CANCELED]);
    const { skipped } = await openCircuit(tenant, target, endpoint.id);
    expect(target.hits).toHaveLength(5);
    for (const entry of skipped) {
      expect(entry).toMatchObject({ status: 'failed', error: 'circuit_breaker_open', http_status: null, attempt: 2 });
      expect(entry.failure_reason).toEqual(expect.any(String));
    }
    // Same message skipped twice: the second skip came one same wait (10 s scaled) after the first.
    const later = await eventually(async () => {
      const log = await deliveries(tenant, endpoint.id);
      const first = log.find((e) => e.error === 'circuit_breaker_open');
      const again = log.filter((e) => e.error === 'circuit_breaker_open' && e.event_id === first.event_id);
      return again.length >= 2 ? again : undefined;
    }, 10_000);
    const gap = Date.parse(later[1].created_at) - Date.parse(later[0].created_at);
    expect(Math.abs(gap - FIRST_WAIT)).toBeLessThanOrEqual(FIRST_WAIT * 0.1 + 300);
    expect(later[1].attempt).toBe(2); // no attempt used up
    expect(target.hits).toHaveLength(5);
  });

  it('when the url changes while open, then the circuit closes and queued messages go to the new url with attempts intact', async () => {
    const tenant = await newTenant();
    const failing = await receiver();
    const healthy = await receiver(behaviours.ok());
    const endpoint = await createEndpoint(tenant, failing.url, [CANCELED]);
    const { events } = await openCircuit(tenant, failing, endpoint.id);
    const changedAt = Date.now();
    expect((await call(tenant, 'PUT', `/v1/webhook-endpoints/${endpoint.id}`, { url: healthy.url })).status).toBe(200);
    await eventually(() => new Set(healthy.hits.map((h) => h.body.id)).size === 5, 10_000, 'delivery to the new url');
    expect(Date.now() - changedAt).toBeLessThan(CIRCUIT_OPEN / 2);
    expect(new Set(healthy.hits.map((h) => h.body.id))).toEqual(new Set(events));
    // Successes are recorded in batches after the answers: the log may trail the receiver's hits.
    const succeeded = await eventually(
      async () => {
        const log = await deliveries(tenant, endpoint.id);
        const done = log.filter((e) => e.status === 'succeeded');
        return done.length >= 5 ? done : undefined;
      },
      10_000,
      'the successes logged',
    );
    expect(succeeded).toHaveLength(5);
    // The skipped attempts did not use up any: each message succeeded at its 2nd real attempt.
    expect(succeeded.map((e) => e.attempt)).toEqual([2, 2, 2, 2, 2]);
  });

  it('when a delivery succeeds while open (redeliver), then the circuit closes and the queue flows at once', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, [CANCELED]);
    const { events } = await openCircuit(tenant, target, endpoint.id);
    target.behaviour = behaviours.ok();
    const [first] = await deliveries(tenant, endpoint.id);
    const closedAt = Date.now();
    expect((await call(tenant, 'POST', `/v1/webhook-deliveries/${first.id}/redeliver`)).status).toBe(202);
    await eventually(
      async () => {
        const log = await deliveries(tenant, endpoint.id);
        const done = new Set(log.filter((e) => e.status === 'succeeded').map((e) => e.event_id));
        return events.every((id) => done.has(id));
      },
      10_000,
      'every queued message delivered',
    );
    expect(Date.now() - closedAt).toBeLessThan(CIRCUIT_OPEN / 2);
  });

  it('when a success comes after 4 failures, then the counter is reset and a new failure does not open the circuit', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, [CANCELED]);
    for (let i = 0; i < 4; i++) await publisher.publish(tenant, CANCELED);
    await eventually(() => target.hits.length >= 4, 10_000, '4 failures');
    target.behaviour = behaviours.ok();
    await eventually(
      async () => (await deliveries(tenant, endpoint.id)).filter((e) => e.status === 'succeeded').length === 4,
      10_000,
    );
    target.behaviour = behaviours.status(500);
    const { eventId } = await publisher.publish(tenant, CANCELED);
    // Its retry is a real POST (had the counter not been reset, 4 + 1 failures would have opened it).
    await eventually(() => target.hits.filter((h) => h.body.id === eventId).length >= 2, 10_000, 'a real retry');
    const log = await deliveries(tenant, endpoint.id);
    expect(log.filter((e) => e.error === 'circuit_breaker_open')).toHaveLength(0);
  });

  it('when test deliveries fail, then they do not feed the circuit, and they are sent even while it is open', async () => {
    const tenant = await newTenant();
    const target = await receiver();
    const endpoint = await createEndpoint(tenant, target.url, [CANCELED]);
    for (let i = 0; i < 6; i++)
      expect((await call(tenant, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).status).toBe(202);
    await eventually(() => target.hits.length >= 6, 10_000, '6 failed tests');
    const { eventId } = await publisher.publish(tenant, CANCELED);
    await eventually(() => target.hits.some((h) => h.body.id === eventId), 10_000, 'the event was POSTed (circuit closed)');

    // Now open it with real failures; a test still goes out.
    await openCircuit(tenant, target, endpoint.id);
    const before = target.hits.filter((h) => h.body.type === 'test').length;
    expect((await call(tenant, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).status).toBe(202);
    await eventually(() => target.hits.filter((h) => h.body.type === 'test').length === before + 1, 10_000, 'test while open');
  });
});
