import { eventId, newId } from '@idv/contracts';
import { TcpProxy, jobSettled, receiversOfThisFile, type Behaviour, type Stack } from '@idv/testkit';
import {
  EventPublisher,
  SESSIONS_AVAILABLE,
  createAndCancelSession,
  createEndpoint,
  deliveries,
  eventually,
  newTenant,
  notifyDispatchers,
  stackTarget,
  startPrivateStack,
  type Target,
} from './support/harness';

/** Fails the first `n` attempts of each event id, then answers 200. */
function failFirstPerEvent(n: number): Behaviour {
  const seen = new Map<string, number>();
  return (hit, res) => {
    const id = String(hit.body?.id);
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    res.writeHead(count <= n ? 500 : 200).end();
  };
}

const CANCELED = 'verification_session.canceled';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
let proxy: TcpProxy;
const publisher = new EventPublisher();
let stack: Stack;
let target: Target;

beforeAll(async () => {
  const proxied = await TcpProxy.inFrontOf(AMQP_URL, 5672);
  proxy = proxied.proxy;
  stack = await startPrivateStack({
    database: 'idv_test_webhooks_resilience',
    services: ['keys', 'sessions', 'webhooks', 'gateway'],
    env: { AMQP_URL: proxied.url },
  });
  // Tests publish straight to the real broker; the services go through the proxy.
  target = stackTarget(stack, AMQP_URL);
}, 90_000);

afterAll(async () => {
  await publisher.close();
  await stack?.stop();
  await proxy?.close();
});

const receiver = receiversOfThisFile();

function succeededIds(log: any[]): Set<string> {
  return new Set(log.filter((e) => e.status === 'succeeded').map((e) => e.event_id));
}

describe('resilience (private stack)', () => {
  it('when the webhooks process is killed with SIGKILL mid-schedule and restarted, then every message is still delivered', async () => {
    const tenant = await newTenant(target);
    // One message fails its first 4 attempts (4 < 5: the circuit stays closed), so its retries span
    // about 7 s (scaled) and most of them must come from the restarted process.
    const sessionId = newId('session');
    const scheduled = eventId(tenant.accountId, sessionId, CANCELED);
    const failing = failFirstPerEvent(4);
    const rx = await receiver((hit, res, req) =>
      hit.body?.id === scheduled ? failing(hit, res, req) : res.writeHead(200).end(),
    );
    const endpoint = await createEndpoint(tenant, rx.url, [CANCELED]);
    await publisher.publish(tenant, CANCELED, { sessionId });
    await eventually(() => rx.hits.length >= 1, 15_000, 'first attempt');

    await stack.kill('webhooks', 'SIGKILL');
    // While it is down, another event arrives (it waits in the durable queue).
    const during = (await publisher.publish(tenant, CANCELED)).eventId;
    await stack.startService('webhooks');

    const log = await eventually(
      async () => {
        const entries = await deliveries(tenant, endpoint.id);
        const done = succeededIds(entries);
        return done.has(scheduled) && done.has(during) ? entries : undefined;
      },
      30_000,
      'every message delivered after the restart',
    );
    expect(log.filter((e) => e.status === 'dead' || e.error === 'circuit_breaker_open')).toHaveLength(0);
    expect(rx.hits.filter((h) => h.body.id === scheduled).length).toBeGreaterThanOrEqual(5);
    // An attempt cut by the kill is not logged (the receiver may have seen it: at-least-once) and is made again.
    const recorded = log.filter((e) => e.event_id === scheduled);
    expect(recorded.at(-1)).toMatchObject({ status: 'succeeded' });
    expect(recorded.map((e) => e.attempt)).toEqual(recorded.map((_e, i) => i + 1));
    expect(rx.hits.filter((h) => h.body.id === scheduled).length - recorded.length).toBeLessThanOrEqual(1);
  }, 90_000);

  it('when the broker connection drops and comes back, then scheduled retries continue and events emitted meanwhile are delivered', async () => {
    const tenant = await newTenant(target);
    const rx = await receiver(failFirstPerEvent(2));
    const endpoint = await createEndpoint(tenant, rx.url, [CANCELED]);
    const before = (await publisher.publish(tenant, CANCELED)).eventId;
    await eventually(() => rx.hits.some((h) => h.body.id === before), 15_000, 'first attempt');

    await proxy.cut();
    try {
      // Retries are scheduled in PostgreSQL: they go on without the broker.
      await eventually(
        async () => succeededIds(await deliveries(tenant, endpoint.id)).has(before),
        15_000,
        'retry during the outage',
      );
      // An event emitted during the outage: a real cancel sits in the sessions outbox; a broker event
      // sits in the durable queue while the consumer is disconnected.
      const during =
        SESSIONS_AVAILABLE && tenant.projectId
          ? (await createAndCancelSession(tenant)).eventId
          : (await publisher.publish(tenant, CANCELED)).eventId;
      await proxy.restore();
      await eventually(
        async () => succeededIds(await deliveries(tenant, endpoint.id)).has(during),
        30_000,
        'delivery after the broker is back',
      );
    } finally {
      await proxy.restore().catch(() => undefined);
    }
  }, 90_000);

  it('when two replicas run, then each message is attempted by one of them only', async () => {
    const replica = await stack.startReplica('webhooks');
    const tenant = await newTenant(target);
    const rx = await receiver((_hit, res) => res.writeHead(200).end());
    const endpoint = await createEndpoint(tenant, rx.url, [CANCELED]);
    const events: string[] = [];
    for (let i = 0; i < 30; i++) events.push((await publisher.publish(tenant, CANCELED)).eventId);
    await eventually(async () => succeededIds(await deliveries(tenant, endpoint.id)).size === 30, 20_000, '30 deliveries');
    // A second claim of a message would have been made while it was pending, before its success: once
    // both replicas' dispatchers have finished what they had claimed, its request has reached the receiver.
    await jobSettled([stack.url('webhooks'), replica.url], 'webhook-dispatch', {
      wake: () => notifyDispatchers(stack.env.DATABASE_URL!),
    });
    // A receiver slower than the (scaled) timeout is legitimately tried again, so the hits may exceed
    // 30 on a loaded machine. A message claimed by both replicas would show as a hit that no attempt in
    // the log accounts for (the losing replica cannot record it), or as two successes of one event.
    const log = await deliveries(tenant, endpoint.id);
    expect(rx.hits).toHaveLength(log.length);
    for (const event of events) {
      const attempts = log.filter((entry) => entry.event_id === event);
      expect(attempts.filter((entry) => entry.status === 'succeeded')).toHaveLength(1);
      expect(new Set(attempts.map((entry) => entry.attempt)).size).toBe(attempts.length);
    }
    expect(new Set(rx.hits.map((h) => h.body.id))).toEqual(new Set(events));
  }, 60_000);
});
