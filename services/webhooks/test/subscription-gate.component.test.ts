import { domainEvents, newId, type AccountId, type SessionEventData, type WebhookEndpointId } from '@idv/contracts';
import path from 'node:path';
import { createPool, type Pool } from '@idv/kit';
import { privateServiceDatabase } from '@idv/testkit';
import { accountSubscribes, insertEndpoint, softDeleteEndpoint, updateEndpoint } from '../src/adapters/endpoints.repository';
import { fanOutSessionEvent } from '../src/use-cases/fan-out';
import { SubscriptionGate } from '../src/use-cases/subscription-gate';

// Against a private PostgreSQL database of the file (schema webhooks migrated; no dispatcher reads it, so
// the queued messages stay as they are), each test with accounts of its own: the fan-out skips events no
// endpoint subscribes to before parsing them, and never misses an endpoint created, enabled or
// subscribed a moment ago.
let pool: Pool;
let database: Awaited<ReturnType<typeof privateServiceDatabase>>;
beforeAll(async () => {
  database = await privateServiceDatabase({
    label: 'webhooks_gate',
    schema: 'webhooks',
    migrationsDir: path.join(__dirname, '..', 'migrations'),
  });
  pool = createPool({ url: database.url, schema: 'webhooks', max: 4 });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const COMPLETED = 'verification_session.completed' as const;
const ALL_TYPES = ['verification_session.completed', 'verification_session.canceled'];

function sessionEvent(accountId: AccountId, mode: 'test' | 'live' = 'test', webhookEvents: string[] = ALL_TYPES) {
  const now = new Date().toISOString();
  const data: SessionEventData = {
    account_id: accountId,
    session: {
      id: newId('session'),
      object: 'verification_session',
      status: 'approved',
      mode,
      project_id: newId('project'),
      config_version: 'cfg_00000001',
      created_at: now,
      completed_at: now,
    },
    webhook_events: webhookEvents,
    options: { documentData: false, verifiedChannels: false, formData: false, evidenceLinks: false },
  };
  return domainEvents.sessionTransition(COMPLETED, data, new Date(now));
}

async function newEndpoint(accountId: AccountId, events: string[] = ALL_TYPES): Promise<WebhookEndpointId> {
  const id = newId('webhookEndpoint');
  await insertEndpoint(pool, accountId, {
    id,
    url: 'https://hooks.example.com/idv',
    events: events as never,
    description: '',
    secretEnc: 'not-a-real-secret',
  });
  return id;
}

async function queuedFor(endpointId: WebhookEndpointId): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE endpoint_id = $1`, [
    endpointId,
  ]);
  return rows[0]!.n;
}

/** The consumer's wiring: one gate shared by every event, asking this database. */
function consumer() {
  let queuedCalls = 0;
  const subscriptions = new SubscriptionGate((accountId, type) => accountSubscribes(pool, accountId, type));
  const deps = { pool, subscriptions, onQueued: () => (queuedCalls += 1) };
  return { fanOut: (event: ReturnType<typeof sessionEvent>) => fanOutSessionEvent(deps, event), queued: () => queuedCalls };
}

describe('the fan-out skips events no endpoint subscribes to', () => {
  it('when the account has no endpoint, then the event is ignored, and an endpoint created just after gets the next one', async () => {
    const account = newId('account');
    const { fanOut } = consumer();
    expect(await fanOut(sessionEvent(account))).toEqual({ kind: 'ignored' });
    const endpoint = await newEndpoint(account);
    expect(await fanOut(sessionEvent(account))).toEqual({ kind: 'fanned_out', queued: 1 });
    expect(await queuedFor(endpoint)).toBe(1);
  });

  it('when the only endpoint is disabled, deleted or subscribes to other types, then nothing is queued; enabled again, it is', async () => {
    const account = newId('account');
    const { fanOut } = consumer();
    const endpoint = await newEndpoint(account, ['verification_session.canceled']);
    expect(await fanOut(sessionEvent(account))).toEqual({ kind: 'ignored' });
    await updateEndpoint(pool, account, endpoint, { events: [COMPLETED] as never });
    expect(await fanOut(sessionEvent(account))).toEqual({ kind: 'fanned_out', queued: 1 });
    // The gate remembers the subscriber; the fan-out statement still reads the endpoint as it is now.
    await updateEndpoint(pool, account, endpoint, { status: 'disabled' });
    expect(await fanOut(sessionEvent(account))).toEqual({ kind: 'fanned_out', queued: 0 });
    await updateEndpoint(pool, account, endpoint, { status: 'active' });
    expect(await fanOut(sessionEvent(account))).toEqual({ kind: 'fanned_out', queued: 1 });
    await softDeleteEndpoint(pool, account, endpoint);
    expect(await fanOut(sessionEvent(account))).toEqual({ kind: 'fanned_out', queued: 0 });
    expect(await queuedFor(endpoint)).toBe(2);
  });

  it("when an endpoint exists, then the account's test and live events both reach it, and another account's do not", async () => {
    const account = newId('account');
    const other = newId('account');
    const { fanOut, queued } = consumer();
    const endpoint = await newEndpoint(account);
    expect(await fanOut(sessionEvent(account, 'test'))).toEqual({ kind: 'fanned_out', queued: 1 });
    expect(await fanOut(sessionEvent(account, 'live'))).toEqual({ kind: 'fanned_out', queued: 1 });
    expect(await fanOut(sessionEvent(other, 'live'))).toEqual({ kind: 'ignored' });
    expect(await queuedFor(endpoint)).toBe(2);
    expect(queued()).toBe(2);
  });

  it('when the frozen config does not fire the type, then it is ignored before any question, even with a subscriber', async () => {
    const account = newId('account');
    const asked: string[] = [];
    const subscriptions = new SubscriptionGate((accountId, type) => {
      asked.push(type);
      return accountSubscribes(pool, accountId, type);
    });
    const endpoint = await newEndpoint(account);
    const deps = { pool, subscriptions, onQueued: () => undefined };
    expect(await fanOutSessionEvent(deps, sessionEvent(account, 'live', []))).toEqual({ kind: 'ignored' });
    expect(asked).toEqual([]);
    expect(await queuedFor(endpoint)).toBe(0);
  });

  it('when the routing fields are unreadable, then the event is malformed (dead-lettered) as before', async () => {
    const event = sessionEvent(newId('account'));
    const broken = { ...event, data: { ...event.data, account_id: 42 } } as unknown as typeof event;
    const { fanOut } = consumer();
    expect((await fanOut(broken)).kind).toBe('malformed');
    const snapshotBroken = { ...event, data: { ...event.data, session: { id: 'nope' } } } as unknown as typeof event;
    const withEndpoint = { ...snapshotBroken, data: { ...snapshotBroken.data } };
    await newEndpoint(event.data.account_id);
    expect((await fanOut(withEndpoint)).kind).toBe('malformed');
  });
});
