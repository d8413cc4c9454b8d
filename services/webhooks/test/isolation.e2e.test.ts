import { Receiver, behaviours, type Stack } from '@idv/testkit';
import {
  EventPublisher,
  createEndpoint,
  eventually,
  newTenant,
  stackTarget,
  startPrivateStack,
  type Target,
} from './support/harness';

const CANCELED = 'verification_session.canceled';
const publisher = new EventPublisher();
let stack: Stack;
let target: Target;

beforeAll(async () => {
  // Real time (10 s receiver timeout) and small slot counts, so the effect of a hanging endpoint is plain.
  stack = await startPrivateStack({
    database: 'idv_test_webhooks_isolation',
    services: ['keys', 'webhooks', 'gateway'],
    env: { TIME_SCALE: '1', WEBHOOKS_CONCURRENCY: '8', WEBHOOKS_ENDPOINT_CONCURRENCY: '2' },
  });
  target = stackTarget(stack);
}, 90_000);

afterAll(async () => {
  await publisher.close();
  await stack?.stop();
});

describe('isolation of endpoints (private stack, TIME_SCALE=1)', () => {
  it('when one endpoint hangs with a backlog larger than every slot, then another endpoint is still served at once', async () => {
    const hanging = await Receiver.start(behaviours.hang());
    const healthy = await Receiver.start(behaviours.ok());
    try {
      const slow = await newTenant(target, undefined, { project: false });
      const fast = await newTenant(target, undefined, { project: false });
      await createEndpoint(slow, hanging.url, [CANCELED]);
      await createEndpoint(fast, healthy.url, [CANCELED]);
      for (let i = 0; i < 12; i++) await publisher.publish(slow, CANCELED);
      // The hanging endpoint holds its 2 slots (its cap), not all 8.
      await eventually(() => hanging.hits.length >= 2, 10_000, 'the hanging endpoint holds its slots');

      const started = Date.now();
      await publisher.publish(fast, CANCELED);
      await eventually(() => healthy.hits.length === 1, 5_000, 'the healthy endpoint served');
      // Far less than the 10 s the hanging requests take: it never waited behind them.
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(hanging.hits).toHaveLength(2);
    } finally {
      // Closing the hanging receiver ends its requests, so the stack stops without waiting 10 s.
      await hanging.close();
      await healthy.close();
    }
  }, 60_000);
});
