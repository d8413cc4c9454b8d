import amqp from 'amqplib';
import pg from 'pg';
import { asId, newId } from '@idv/contracts';
import { SIMPLE_CONFIG, api, buildTenant, ops, testEnv } from '@idv/testkit';
import { createSession as createStatement, isRecordRace } from '../src/adapters/session-create.repository';
import { idempotencyLockKey } from '../src/domain/idempotency';
import { createSession, until } from './helpers';

/**
 * The create in one statement (issue 43, docs/performance.md "Fixes applied"): the key's lock, its record, the
 * session, the debit and the answer to replay are written together, so the contract's idempotency and balance
 * rules are checked here under bursts, in test mode (the statement alone) and live (with the alert's transaction).
 */

/** Every `balance.*` event published while the test runs. */
class BalanceTap {
  readonly types: { type: string; account: string; id: string }[] = [];
  private constructor(private readonly connection: amqp.ChannelModel) {}

  static async open(): Promise<BalanceTap> {
    const env = testEnv();
    const connection = await amqp.connect(env.amqpUrl);
    const channel = await connection.createChannel();
    const exchange = `${env.namespace}.events`;
    await channel.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(queue, exchange, 'balance.#');
    const tap = new BalanceTap(connection);
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        const event = JSON.parse(message.content.toString('utf8')) as { id: string; type: string; data: { account_id: string } };
        if (!tap.types.some((seen) => seen.id === event.id))
          tap.types.push({ type: event.type, account: event.data.account_id, id: event.id });
      },
      { noAck: true },
    );
    return tap;
  }

  of(accountId: string): string[] {
    return this.types.filter((e) => e.account === accountId).map((e) => e.type);
  }

  close(): Promise<void> {
    return this.connection.close().catch(() => undefined);
  }
}

let tap: BalanceTap;
beforeAll(async () => {
  tap = await BalanceTap.open();
});
afterAll(() => tap.close());

const listed = async (key: string) => (await api('GET', '/v1/verification-sessions?limit=100', { key })).body.data as unknown[];

test('when 30 identical test-mode creates race with one key, then one session, and every 201 is the first answer byte for byte', async () => {
  const { project, testKey } = await buildTenant();
  const headers = { 'idempotency-key': 'burst-test' };
  const results = await Promise.all(
    Array.from({ length: 30 }, () => createSession(testKey, project.id, { external_ref: 'ré"f' }, headers)),
  );
  expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'conflict'))).toBe(true);
  const created = results.filter((r) => r.status === 201);
  expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
  expect(await listed(testKey)).toHaveLength(1);
  const first = created.find((r) => r.headers['idempotent-replayed'] !== 'true') ?? created[0]!;
  expect(first.body.config_version).toMatch(/^cfg_\d{8}$/);
  expect((await api('GET', `/v1/verification-sessions/${first.body.id}`, { key: testKey })).body).toEqual(first.body);
  expect(first.body.external_ref).toBe('ré"f');
  const replay = await createSession(testKey, project.id, { external_ref: 'ré"f' }, headers);
  expect(replay.status).toBe(201);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.text).toBe(first.text);
  for (const r of created) expect(r.text).toBe(first.text);
});

test('when a project has a later version, then the stored answer names the version the session was bound to', async () => {
  const { project, testKey } = await buildTenant();
  const before = await createSession(testKey, project.id);
  await ops().publishConfig(project.id, 'test', SIMPLE_CONFIG);
  const first = await createSession(testKey, project.id, {}, { 'idempotency-key': 'v2' });
  expect(first.status).toBe(201);
  expect(first.body.config_version).not.toBe(before.body.config_version);
  expect((await api('GET', `/v1/verification-sessions/${first.body.id}`, { key: testKey })).body).toEqual(first.body);
  const replay = await createSession(testKey, project.id, {}, { 'idempotency-key': 'v2' });
  expect(replay.text).toBe(first.text);
});

test('when live creates with distinct keys outrun the balance, then each token makes one session and the rest are 402 and leave nothing', async () => {
  const { account, project, liveKey } = await buildTenant({ tokens: 3 });
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => createSession(liveKey, project.id, {}, { 'idempotency-key': `spend-${i}` })),
  );
  expect(results.filter((r) => r.status === 201)).toHaveLength(3);
  expect(results.filter((r) => r.status === 402 && r.body.code === 'insufficient_balance')).toHaveLength(7);
  expect(await listed(liveKey)).toHaveLength(3);
  expect((await ops().balance(account.id)).balance).toBe(0);
  // A refused create stored no answer: after a top-up the same key creates.
  const refused = results.findIndex((r) => r.status === 402);
  await ops().creditBalance(account.id, 1);
  const retried = await createSession(liveKey, project.id, {}, { 'idempotency-key': `spend-${refused}` });
  expect(retried.status).toBe(201);
  expect(retried.headers['idempotent-replayed']).toBeUndefined();
  // The last token's debit told the owner once: one `balance.depleted` for the burst.
  await until(
    () => Promise.resolve(tap.of(account.id)),
    (types) => types.includes('balance.depleted'),
  );
  expect(tap.of(account.id).filter((t) => t === 'balance.depleted')).toHaveLength(1);
});

test('when live creates without a key outrun the balance, then exactly the tokens are spent and one depleted alert is sent', async () => {
  const { account, project, liveKey } = await buildTenant({ tokens: 2 });
  const results = await Promise.all(Array.from({ length: 6 }, () => createSession(liveKey, project.id)));
  expect(results.filter((r) => r.status === 201)).toHaveLength(2);
  expect(results.filter((r) => r.status === 402)).toHaveLength(4);
  expect(await listed(liveKey)).toHaveLength(2);
  expect((await ops().balance(account.id)).balance).toBe(0);
  await until(
    () => Promise.resolve(tap.of(account.id)),
    (types) => types.includes('balance.depleted'),
  );
  expect(tap.of(account.id).filter((t) => t === 'balance.depleted')).toHaveLength(1);
});

test('when the project is not usable, then a create with a key says why and a later good create with that key runs', async () => {
  const { project, testKey } = await buildTenant({ tokens: 1 });
  const stranger = await buildTenant();
  const foreign = await createSession(testKey, stranger.project.id, {}, { 'idempotency-key': 'bad-project' });
  expect(foreign.status).toBe(422);
  expect(foreign.body.code).toBe('validation_failed');
  const good = await createSession(testKey, project.id, {}, { 'idempotency-key': 'bad-project-2' });
  expect(good.status).toBe(201);
  // Live with nothing published in live mode: the transaction path refuses the same way as before.
  const unpublished = await buildTenant({ tokens: 1, modes: ['test'] });
  const res = await createSession(unpublished.liveKey, unpublished.project.id, {}, { 'idempotency-key': 'no-live' });
  expect(res.status).toBe(422);
  expect(res.body.code).toBe('config_not_published');
  expect((await ops().balance(unpublished.account.id)).balance).toBe(1);
});

test('when the statement reads a snapshot older than a create with the same key, then the record refuses it and nothing is left', async () => {
  const { account, project, testKey, testKeyId } = await buildTenant();
  const scope = {
    accountId: asId('account', account.id),
    mode: 'test' as const,
    apiKeyId: asId('apiKey', testKeyId),
    key: 'stale',
  };
  const db = new pg.Client({ connectionString: testEnv().databaseUrl, options: '-c search_path=sessions,public' });
  await db.connect();
  try {
    // REPEATABLE READ keeps the snapshot taken now: the same view a statement has that started just before the
    // other create committed and released the lock.
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await db.query('SELECT 1');
    const first = await createSession(testKey, project.id, {}, { 'idempotency-key': 'stale' });
    expect(first.status).toBe(201);
    const now = new Date();
    const record = {
      id: newId('session'),
      accountId: scope.accountId,
      mode: scope.mode,
      projectId: asId('project', project.id),
      status: 'pending' as const,
      externalRef: null,
      linkToken: newId('linkToken'),
      apiKeyId: scope.apiKeyId,
      expiresAt: new Date(now.getTime() + 3_600_000),
      redeemedAt: null,
      idleDeadline: null,
      result: null,
      completedAt: null,
      createdAt: now,
    };
    const key = { scope, lockKey: idempotencyLockKey(scope), requestHash: 'h', bodyBeforeVersion: '{', bodyAfterVersion: '}' };
    const error = await createStatement(db, record, { key, debit: false }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRecordRace(error)).toBe(true);
    await db.query('ROLLBACK');
    // Read again (what the service does): the record is seen and replayed; the refused session is not there.
    const again = await createStatement(db, { ...record, id: newId('session') }, { key, debit: false });
    expect(again).toMatchObject({ kind: 'recorded', record: { responseBody: first.text } });
    expect((await db.query('SELECT 1 FROM sessions WHERE id = $1', [record.id])).rowCount).toBe(0);
  } finally {
    await db.end();
  }
});
