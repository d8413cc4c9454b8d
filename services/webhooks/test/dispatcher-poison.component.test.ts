import path from 'node:path';
import { newId } from '@idv/contracts';
import { createLogger, createMetrics, createPool, type Pool } from '@idv/kit';
import { privateServiceDatabase, waitFor } from '@idv/testkit';
import { Dispatcher } from '../src/adapters/dispatcher';
import { cancelMessage, claimDue, releaseClaims } from '../src/adapters/messages.repository';
import type { ClaimedMessage } from '../src/domain/message';

/**
 * The dispatch job's poison handling against a real PostgreSQL database of the test's own (so no running
 * webhooks service claims these messages): the count of claims that ended without an outcome lives in
 * the messages table, so it is shared by replicas and survives restarts.
 */
let database: Awaited<ReturnType<typeof privateServiceDatabase>>;
let pool: Pool;
const logger = createLogger({ service: 'dispatch-test', level: 'silent' });

beforeAll(async () => {
  database = await privateServiceDatabase({
    label: 'dispatch_poison',
    schema: 'webhooks',
    migrationsDir: path.join(__dirname, '..', 'migrations'),
  });
  pool = createPool({ url: database.url, schema: 'webhooks', max: 6 });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** A message due now to a fresh endpoint, with `unfinishedClaims` claims already ended without an outcome. */
async function dueMessage(unfinishedClaims = 0): Promise<string> {
  const accountId = newId('account');
  const endpointId = newId('webhookEndpoint');
  const eventId = newId('event');
  await pool.query(
    `INSERT INTO endpoints (id, account_id, url, events, secret_enc) VALUES ($1, $2, 'https://receiver.example/hook', '{}', 'x')`,
    [endpointId, accountId],
  );
  await pool.query(
    `INSERT INTO events (id, account_id, type, data, occurred_at) VALUES ($1, $2, 'verification_session.canceled', '{}', now())`,
    [eventId, accountId],
  );
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO messages (account_id, endpoint_id, event_id, kind, unfinished_claims) VALUES ($1, $2, $3, 'event', $4) RETURNING id`,
    [accountId, endpointId, eventId, unfinishedClaims],
  );
  return rows[0]!.id;
}

async function statusOf(id: string): Promise<{ status: string; unfinished_claims: number }> {
  const { rows } = await pool.query<{ status: string; unfinished_claims: number }>(
    'SELECT status, unfinished_claims FROM messages WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

function dispatcher(handle: (message: ClaimedMessage) => Promise<void>, leaseMs = 30_000): Dispatcher {
  return new Dispatcher({
    pool,
    databaseUrl: database.url,
    logger,
    metrics: createMetrics('dispatch-test'),
    concurrency: 4,
    endpointConcurrency: 2,
    pollMs: 20,
    leaseMs,
    handle,
  });
}

describe('dead-lettering poison messages', () => {
  test('when the earlier claims of a message all ended without an outcome (its replicas died), then it is set aside without being sent', async () => {
    const poison = await dueMessage(5);
    const healthy = await dueMessage(0);
    const handled: string[] = [];
    const job = dispatcher(async (message) => {
      handled.push(message.id);
      await cancelMessage(pool, message.id, message.claimToken);
    });
    await job.start();
    try {
      await waitFor(async () => (await statusOf(poison)).status === 'dead', 10_000, 10, 'poison dead-lettered');
      await waitFor(async () => (await statusOf(healthy)).status === 'canceled', 10_000, 10, 'healthy message settled');
    } finally {
      await job.stop();
    }
    expect(handled).toEqual([healthy]);
  });

  test('when the bookkeeping of a message fails on one replica after another, then the fifth failure sets it aside', async () => {
    const id = await dueMessage(0);
    let attempts = 0;
    // Each attempt on a new replica (as after restarts): a count kept in one process would never get there.
    for (let replica = 1; replica <= 5; replica += 1) {
      const job = dispatcher((message) => {
        if (message.id !== id) return Promise.resolve();
        attempts += 1;
        return Promise.reject(new Error('bookkeeping failed'));
      }, 100);
      await job.start();
      try {
        await waitFor(() => attempts >= replica, 10_000, 10, `attempt ${replica}`);
      } finally {
        await job.stop();
      }
      expect((await statusOf(id)).status).toBe(replica < 5 ? 'pending' : 'dead');
    }
    expect(attempts).toBe(5);
  });

  test('when a claim is given back unsent (its endpoint was at its cap), then it does not count as a failure', async () => {
    const id = await dueMessage(2);
    const claimed = await claimDue(pool, { limit: 100, excludeEndpoints: [], leaseMs: 30_000, token: 'claim-test' });
    expect(claimed.find((message) => message.id === id)?.earlierFailures).toBe(2);
    expect((await statusOf(id)).unfinished_claims).toBe(3);
    await releaseClaims(
      pool,
      claimed.map((message) => message.id),
      'claim-test',
    );
    expect(await statusOf(id)).toEqual({ status: 'pending', unfinished_claims: 2 });
  });
});
