import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  Broker,
  OUTBOX_MIGRATIONS_DIR,
  OutboxRelay,
  createLogger,
  createPool,
  enqueueEvent,
  enqueueEvents,
  withTransaction,
  type Pool,
} from '../src';
import { TcpProxy, waitFor } from '@idv/testkit';
import amqp from 'amqplib';
import pg from 'pg';

const logger = createLogger({ service: 'kit-test', level: 'silent' });

function event(type: string) {
  return { id: `evt_${randomBytes(16).toString('hex')}`, type, occurred_at: new Date().toISOString(), data: { n: 1 } };
}

describe('outbox relay and broker', () => {
  const schema = `kit_test_${randomBytes(4).toString('hex')}`;
  const namespace = `kt${randomBytes(4).toString('hex')}`;
  let pool: Pool;
  let proxy: TcpProxy;
  let broker: Broker;
  let relay: OutboxRelay;
  let observer: amqp.ChannelModel;
  const received: string[] = [];

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    for (const file of readdirSync(OUTBOX_MIGRATIONS_DIR).sort()) {
      const up = readFileSync(path.join(OUTBOX_MIGRATIONS_DIR, file), 'utf8').split('-- Down Migration')[0]!;
      await admin.query(`SET search_path = ${schema}; ${up}`);
    }
    await admin.end();
    pool = createPool({ url: process.env.DATABASE_URL!, schema });

    const proxied = await TcpProxy.inFrontOf(process.env.AMQP_URL!, 5672);
    proxy = proxied.proxy;
    broker = new Broker({ url: proxied.url, namespace, logger });
    await broker.start();

    // The observer talks to RabbitMQ directly, so it keeps listening while the proxy is cut.
    observer = await amqp.connect(process.env.AMQP_URL!);
    const channel = await observer.createChannel();
    await channel.assertExchange(`${namespace}.events`, 'topic', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true });
    await channel.bindQueue(queue, `${namespace}.events`, 'kit.#');
    await channel.consume(
      queue,
      (message) => {
        if (message) received.push(message.properties.messageId as string);
      },
      { noAck: true },
    );

    relay = new OutboxRelay({ pool, broker, logger, schema, pollIntervalMs: 200 });
    await relay.start();
  });

  afterAll(async () => {
    await relay.stop();
    await broker.close();
    await observer.close();
    await proxy.close();
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  });

  it('when an event is written in a committed transaction, then it is published once with its id', async () => {
    const published = event('kit.committed');
    await withTransaction(pool, (tx) => enqueueEvent(tx, published));
    await waitFor(() => (received.includes(published.id) ? true : undefined), 5000);
    expect(received.filter((id) => id === published.id)).toHaveLength(1);
  });

  it('when several events are written in one statement, then each is published once, in the order written', async () => {
    const batch = Array.from({ length: 3 }, (_, i) => event(`kit.batch-${i}`));
    await withTransaction(pool, (tx) => enqueueEvents(tx, batch));
    await waitFor(() => (batch.every((e) => received.includes(e.id)) ? true : undefined), 5000);
    expect(received.filter((id) => batch.some((e) => e.id === id))).toEqual(batch.map((e) => e.id));
  });

  it('when the transaction rolls back, then its event is never published', async () => {
    const lost = event('kit.rolled-back');
    const marker = event('kit.after-rollback');
    await expect(
      withTransaction(pool, async (tx) => {
        await enqueueEvent(tx, lost);
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    await withTransaction(pool, (tx) => enqueueEvent(tx, marker));
    await waitFor(() => (received.includes(marker.id) ? true : undefined), 5000);
    expect(received).not.toContain(lost.id);
  });

  it('when the same event id is written twice, then the outbox keeps one row', async () => {
    const twice = event('kit.twice');
    await withTransaction(pool, (tx) => enqueueEvent(tx, twice));
    await withTransaction(pool, (tx) => enqueueEvent(tx, twice));
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM outbox WHERE event_id = $1', [twice.id]);
    expect(rows[0].n).toBe(1);
  });

  it('when a relay died holding a claim on rows, then they wait for the claim to run out and are then published once', async () => {
    const orphan = event('kit.orphaned-claim');
    await withTransaction(pool, async (tx) => {
      await enqueueEvent(tx, orphan);
      await tx.query(`UPDATE outbox SET claimed_until = now() + interval '3 seconds' WHERE event_id = $1`, [orphan.id]);
    });
    // A row written after the orphan: the relay publishes in the order written, so once the marker is
    // out, a pass has gone over the orphan and left it to its claim.
    const marker = event('kit.after-orphan');
    await withTransaction(pool, (tx) => enqueueEvent(tx, marker));
    await waitFor(() => (received.includes(marker.id) ? true : undefined), 5000);
    const { rows } = await pool.query('SELECT claimed_until > now() AS held FROM outbox WHERE event_id = $1', [orphan.id]);
    expect(rows[0].held).toBe(true);
    expect(received).not.toContain(orphan.id);
    await waitFor(() => (received.includes(orphan.id) ? true : undefined), 10_000);
    expect(received.filter((id) => id === orphan.id)).toHaveLength(1);
  });

  it('when more rows wait than one batch carries, then every one is published, in the order written', async () => {
    const small = new OutboxRelay({ pool, broker, logger, schema, pollIntervalMs: 60_000, batchSize: 4 });
    await relay.stop();
    try {
      const many = Array.from({ length: 10 }, (_, i) => event(`kit.many-${i}`));
      await withTransaction(pool, (tx) => enqueueEvents(tx, many));
      await small.start();
      await waitFor(() => (many.every((e) => received.includes(e.id)) ? true : undefined), 10_000);
      expect(received.filter((id) => many.some((e) => e.id === id))).toEqual(many.map((e) => e.id));
    } finally {
      await small.stop();
      relay = new OutboxRelay({ pool, broker, logger, schema, pollIntervalMs: 200 });
      await relay.start();
    }
  });

  it('when the broker is unreachable, then events wait in the outbox and are all published once it returns', async () => {
    await proxy.cut();
    await waitFor(() => (broker.isConnected() ? undefined : true), 5000);
    const during = Array.from({ length: 5 }, () => event('kit.during-outage'));
    for (const e of during) await withTransaction(pool, (tx) => enqueueEvent(tx, e));
    // A pass of the relay (the one its loop makes when the rows notify) while the broker is away: it
    // may fail, but must leave every row to wait.
    await relay.drainOnce().catch(() => undefined);
    const { rows: waiting } = await pool.query(
      'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL AND event_id = ANY($1)',
      [during.map((e) => e.id)],
    );
    expect(waiting[0].n).toBe(5);
    expect(received.some((id) => during.some((e) => e.id === id))).toBe(false);

    await proxy.restore();
    await waitFor(() => (during.every((e) => received.includes(e.id)) ? true : undefined), 15_000);
    for (const e of during) expect(received.filter((id) => id === e.id)).toHaveLength(1);
    // Rows are marked published in the relay's transaction, just after the broker confirmed them.
    await waitFor(async () => {
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL');
      return rows[0].n === 0 ? true : undefined;
    }, 5000);
  });
});

describe('broker consumer shutdown', () => {
  it('when the broker is closed while a message is being handled, then the handler finishes and the message is acked', async () => {
    const namespace = `kc${randomBytes(4).toString('hex')}`;
    const broker = new Broker({ url: process.env.AMQP_URL!, namespace, logger });
    let finished = false;
    let started = false;
    await broker.consume({
      queue: 'slow',
      bindings: ['slow.#'],
      handler: async () => {
        started = true;
        // The handler's own work time (the situation under test), not a wait of the test: a close that
        // did not wait for it would end well before it does.
        await new Promise((resolve) => setTimeout(resolve, 400));
        finished = true;
        return 'ack';
      },
    });
    await broker.start();
    await broker.publish(event('slow.one'));
    await waitFor(() => (started ? true : undefined), 5000);
    await broker.close();
    expect(finished).toBe(true);

    const connection = await amqp.connect(process.env.AMQP_URL!);
    const channel = await connection.createChannel();
    const { messageCount } = await channel.checkQueue(`${namespace}.slow`);
    expect(messageCount).toBe(0);
    await channel.deleteQueue(`${namespace}.slow`);
    await channel.deleteQueue(`${namespace}.slow.dead`);
    await connection.close();
  });
});

describe('a message its handler keeps failing', () => {
  it('when a handler fails every time, then the message is tried maxAttempts times and then dead-lettered, not requeued forever', async () => {
    const namespace = `kp${randomBytes(4).toString('hex')}`;
    const broker = new Broker({ url: process.env.AMQP_URL!, namespace, logger });
    const seenAttempts: unknown[] = [];
    await broker.consume({
      queue: 'poison',
      bindings: ['poison.#'],
      maxAttempts: 4,
      retryDelayMs: 10,
      handler: (_event, raw) => {
        seenAttempts.push(raw.properties.headers?.['x-idv-attempts'] ?? 0);
        return Promise.reject(new Error('always fails'));
      },
    });
    await broker.start();
    const poisoned = event('poison.one');
    await broker.publish(poisoned);

    const connection = await amqp.connect(process.env.AMQP_URL!);
    const channel = await connection.createChannel();
    const dead = await waitFor(async () => {
      const message = await channel.get(`${namespace}.poison.dead`, { noAck: true });
      return message || undefined;
    }, 10_000);
    await broker.close();

    expect(JSON.parse(dead.content.toString()).id).toBe(poisoned.id);
    expect(seenAttempts).toEqual([0, 1, 2, 3]);
    const { messageCount } = await channel.checkQueue(`${namespace}.poison`);
    expect(messageCount).toBe(0);
    await channel.deleteQueue(`${namespace}.poison`);
    await channel.deleteQueue(`${namespace}.poison.dead`);
    await connection.close();
  });
});
