import { randomBytes } from 'node:crypto';
import { waitFor } from '@idv/testkit';
import amqp from 'amqplib';
import { Broker, createLogger, createMetrics, type Metrics } from '../src';

/**
 * The broker's consumer metrics against the real RabbitMQ: a consumer of its own namespace settles one
 * message of each kind (acked, retried then acked, failed until dead-lettered, redelivered), and the
 * registry's text output is read as a scrape reads it.
 */
const logger = createLogger({ service: 'kit-test', level: 'silent' });

function event(type: string) {
  return { id: `evt_${randomBytes(16).toString('hex')}`, type, occurred_at: new Date().toISOString(), data: { n: 1 } };
}

/** The value of the sample `name` whose labels include `labels`, from the registry's text output. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('broker metrics', () => {
  const namespace = `km${randomBytes(4).toString('hex')}`;
  const queue = 'work';
  let metrics: Metrics;
  let broker: Broker;
  let admin: amqp.ChannelModel;
  let channel: amqp.Channel;
  /** Lets the handler of the `work.hold` message finish. */
  let release: () => void = () => undefined;
  let holding = false;
  const flakyTries = new Map<string, number>();

  const scrape = () => metrics.registry.metrics();
  /** Scrapes until `done` holds or the deadline passes; returns the last scrape either way, for the assertions to judge. */
  async function scrapeUntil(done: (text: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = await scrape();
      if (done(text) || Date.now() > deadline) return text;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    admin = await amqp.connect(process.env.AMQP_URL!);
    channel = await admin.createChannel();
    metrics = createMetrics('kit-broker-test');
    broker = new Broker({ url: process.env.AMQP_URL!, namespace, logger, metrics });
  });

  afterAll(async () => {
    release();
    await broker.close();
    for (const name of [queue, `${queue}.dead`]) await channel.deleteQueue(`${namespace}.${name}`).catch(() => undefined);
    await channel.deleteExchange(`${namespace}.events`).catch(() => undefined);
    await channel.deleteExchange(`${namespace}.dead-letter`).catch(() => undefined);
    await admin.close();
  });

  it('when messages end acked, retried, dead-lettered and redelivered, then the counters and the queue gauges say so', async () => {
    // A delivery that a consumer before did not settle: taken by a bare consumer of the queue (declared
    // as the broker declares it) whose channel closes, so RabbitMQ puts it back flagged as redelivered.
    const declare = await admin.createChannel();
    await declare.assertQueue(`${namespace}.${queue}`, {
      durable: true,
      deadLetterExchange: `${namespace}.dead-letter`,
      deadLetterRoutingKey: queue,
    });
    declare.sendToQueue(`${namespace}.${queue}`, Buffer.from(JSON.stringify(event('work.redelivered'))));
    await new Promise<void>((resolve, reject) => {
      void declare.consume(`${namespace}.${queue}`, (message) => (message ? resolve() : undefined)).catch(reject);
    });
    await declare.close();

    await broker.consume({
      queue,
      bindings: ['work.#'],
      maxAttempts: 2,
      retryDelayMs: 10,
      handler: async (event) => {
        // The transport takes any envelope; these test types are no domain event's.
        const type: string = event.type;
        if (type === 'work.poison') throw new Error('always fails');
        if (type === 'work.flaky') {
          const tries = (flakyTries.get(event.id) ?? 0) + 1;
          flakyTries.set(event.id, tries);
          return tries === 1 ? 'retry' : 'ack';
        }
        if (type === 'work.hold') {
          holding = true;
          await new Promise<void>((resolve) => (release = resolve));
        }
        return 'ack';
      },
    });
    await broker.start();
    for (const type of ['work.ok', 'work.flaky', 'work.poison']) await broker.publish(event(type));

    // Settled: ok, flaky's second try and the redelivered one acked; flaky's and poison's first try
    // queued again; poison's second try dead-lettered, and waiting in the dead-letter queue, unconsumed.
    const consumed = (outcome: string, text: string) => sample(text, 'amqp_messages_consumed_total', { queue, outcome });
    const settledText = await scrapeUntil((text) => {
      const total = ['ack', 'requeue', 'dead_letter', 'reject'].reduce((sum, outcome) => sum + (consumed(outcome, text) ?? 0), 0);
      const dead = sample(text, 'amqp_queue_messages_ready', { queue: `${queue}.dead` });
      return total === 6 && sample(text, 'amqp_messages_unacked', { queue }) === 0 && dead === 1;
    });
    expect(consumed('ack', settledText)).toBe(3);
    expect(consumed('requeue', settledText)).toBe(2);
    expect(consumed('dead_letter', settledText)).toBe(1);
    expect(consumed('reject', settledText)).toBeUndefined();
    expect(sample(settledText, 'amqp_messages_dead_lettered_total', { queue })).toBe(1);
    expect(sample(settledText, 'amqp_messages_redelivered_total', { queue })).toBe(1);
    expect(sample(settledText, 'amqp_messages_unacked', { queue })).toBe(0);
    expect(sample(settledText, 'amqp_queue_messages_ready', { queue })).toBe(0);
    expect(sample(settledText, 'amqp_queue_consumers', { queue })).toBe(1);
    expect(sample(settledText, 'amqp_queue_consumers', { queue: `${queue}.dead` })).toBe(0);
    // Labelled by the queue's name without the namespace: dashboards do not depend on the stack's prefix.
    expect(settledText).not.toContain(namespace);

    // A delivery in its handler is unacked until it settles.
    await broker.publish(event('work.hold'));
    await waitFor(() => (holding ? true : undefined), 5000);
    expect(sample(await scrape(), 'amqp_messages_unacked', { queue })).toBe(1);
    release();
    const afterHold = await scrapeUntil((text) => consumed('ack', text) === 4);
    expect(consumed('ack', afterHold)).toBe(4);
    expect(sample(afterHold, 'amqp_messages_unacked', { queue })).toBe(0);
  });

  it('when the broker cannot answer for a queue at scrape time, then the scrape still succeeds with the last values, and later ones read again', async () => {
    const before = await scrape();
    expect(sample(before, 'amqp_queue_messages_ready', { queue: `${queue}.dead` })).toBe(1);
    expect(sample(before, 'amqp_queue_consumers', { queue })).toBe(1);

    // The dead-letter queue is gone: the broker's check of it fails (and closes the checking channel).
    await channel.deleteQueue(`${namespace}.${queue}.dead`);
    // Until a read after the deletion has failed, the scrape may reuse the one before.
    await waitFor(async () => ((await broker.queueStats()) === null ? true : undefined), 5000);

    const during = await scrape();
    expect(sample(during, 'amqp_queue_messages_ready', { queue: `${queue}.dead` })).toBe(1);
    expect(sample(during, 'amqp_queue_messages_ready', { queue })).toBe(sample(before, 'amqp_queue_messages_ready', { queue }));
    expect(sample(during, 'amqp_queue_consumers', { queue })).toBe(1);
    const acked = (text: string) => sample(text, 'amqp_messages_consumed_total', { queue, outcome: 'ack' });
    expect(acked(during)).toBe(acked(before));

    // The queue is back (empty): the next reads open a new checking channel and see it.
    await channel.assertQueue(`${namespace}.${queue}.dead`, { durable: true });
    const after = await scrapeUntil((text) => sample(text, 'amqp_queue_messages_ready', { queue: `${queue}.dead` }) === 0);
    expect(sample(after, 'amqp_queue_messages_ready', { queue: `${queue}.dead` })).toBe(0);
    expect(sample(after, 'amqp_queue_consumers', { queue })).toBe(1);
  });
});
