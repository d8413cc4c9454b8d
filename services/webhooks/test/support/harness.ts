import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  domainEvents,
  eventId,
  newId,
  type AccountId,
  type ProjectId,
  type SessionEventData,
  type SessionEventType,
  type SessionId,
} from '@idv/contracts';
import { OpsClient } from '@idv/ops';
import {
  ROOT_DIR,
  SIMPLE_CONFIG,
  Stack,
  api,
  buildAccount,
  buildKey,
  buildTenant,
  infraFromEnv,
  testEnv,
  waitFor,
  type Receiver,
  type ServiceName,
  type StackOptions,
} from '@idv/testkit';
import amqp from 'amqplib';
import pg from 'pg';
import { DUE_CHANNEL } from '../../src/adapters/messages.repository';

/** Whether the sessions service is built (the stack starts it only then). */
export const SESSIONS_AVAILABLE = existsSync(path.join(ROOT_DIR, 'services', 'sessions', 'dist', 'main.js'));

export const ALL_SESSION_EVENTS = [
  'verification_session.approved',
  'verification_session.rejected',
  'verification_session.completed',
  'verification_session.expired',
  'verification_session.canceled',
];

/** Where a test talks to: the global stack (default) or a private one. */
export interface Target {
  gatewayUrl: string;
  amqpUrl: string;
  namespace: string;
  ops: OpsClient;
}

export function globalTarget(): Target {
  const env = testEnv();
  return {
    gatewayUrl: env.gatewayUrl,
    amqpUrl: env.amqpUrl,
    namespace: env.namespace,
    ops: new OpsClient({ keysUrl: env.keysUrl, sessionsUrl: env.sessionsUrl, internalToken: env.internalToken }),
  };
}

export function stackTarget(stack: Stack, amqpUrl = stack.env.AMQP_URL!): Target {
  return {
    gatewayUrl: stack.gatewayUrl,
    amqpUrl,
    namespace: stack.env.BROKER_NAMESPACE!,
    ops: new OpsClient({
      keysUrl: stack.url('keys'),
      sessionsUrl: stack.url('sessions'),
      internalToken: stack.env.INTERNAL_TOKEN!,
    }),
  };
}

export interface Tenant {
  accountId: AccountId;
  key: string;
  projectId: ProjectId | null;
  webhookEvents: string[];
  target: Target;
}

let counter = 0;

/** An account of the test's own: with a published project when the sessions service runs. */
export async function newTenant(
  target: Target = globalTarget(),
  webhookEvents: string[] = ALL_SESSION_EVENTS,
  options: { project?: boolean } = {},
): Promise<Tenant> {
  const config = { ...SIMPLE_CONFIG, options: { ...SIMPLE_CONFIG.options, webhookEvents } };
  if (target.gatewayUrl === testEnv().gatewayUrl) {
    if (SESSIONS_AVAILABLE) {
      const t = await buildTenant({ modes: ['test'], config });
      return { accountId: t.account.id, key: t.testKey, projectId: t.project.id, webhookEvents, target };
    }
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    return { accountId: account.id, key: key.secret, projectId: null, webhookEvents, target };
  }
  const unique = `${process.pid}-${Date.now()}-${++counter}`;
  const account = await target.ops.createAccount({ name: `Private ${unique}`, email: `p-${unique}@example.com` });
  await target.ops.approveAccount(account.id);
  const key = await target.ops.createKey({ account_id: account.id, mode: 'test', name: `k-${unique}` });
  let projectId: ProjectId | null = null;
  if (SESSIONS_AVAILABLE && options.project !== false) {
    const project = await target.ops.createProject({ account_id: account.id, name: `p-${unique}` });
    await target.ops.publishConfig(project.id, 'test', config);
    projectId = project.id;
  }
  return { accountId: account.id, key: key.secret, projectId, webhookEvents, target };
}

export function call(tenant: Tenant, method: string, urlPath: string, body?: unknown) {
  return api(method, urlPath, { key: tenant.key, baseUrl: tenant.target.gatewayUrl, ...(body === undefined ? {} : { body }) });
}

export async function createEndpoint(tenant: Tenant, url: string, events: string[] = ALL_SESSION_EVENTS) {
  const response = await call(tenant, 'POST', '/v1/webhook-endpoints', { url, events, description: 'test receiver' });
  if (response.status !== 201) throw new Error(`endpoint creation failed: ${response.status} ${response.text}`);
  return response.body as { id: string; secret: string; url: string };
}

export async function deliveries(tenant: Tenant, endpointId: string): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | undefined;
  do {
    const response = await call(
      tenant,
      'GET',
      `/v1/webhook-deliveries?endpoint=${endpointId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    if (response.status !== 200) throw new Error(`delivery list failed: ${response.status} ${response.text}`);
    all.push(...response.body.data);
    cursor = response.body.has_more ? response.body.next_cursor : undefined;
  } while (cursor);
  // Oldest first is easier to read in assertions.
  return all.reverse();
}

/**
 * Polls until `probe` returns something other than undefined/false, or fails after `timeoutMs`; not
 * faster than every 150 ms by default: a probe through the gateway counts against the account's 20/s.
 */
export function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
  what = 'condition',
  intervalMs = 150,
): Promise<T> {
  return waitFor(probe, timeoutMs, intervalMs, what);
}

/** Publishes well-formed session domain events as the sessions service does (for the sending machinery). */
export class EventPublisher {
  private connection: amqp.ChannelModel | null = null;
  private channel: amqp.ConfirmChannel | null = null;

  async publish(
    tenant: Tenant,
    type: SessionEventType,
    options: { sessionId?: SessionId; webhookEvents?: string[] } = {},
  ): Promise<{ eventId: string; sessionId: SessionId }> {
    if (!this.channel) {
      this.connection = await amqp.connect(tenant.target.amqpUrl);
      this.channel = await this.connection.createConfirmChannel();
    }
    const sessionId = options.sessionId ?? newId('session');
    const now = new Date().toISOString();
    const status = type.split('.')[1] === 'completed' ? 'approved' : (type.split('.')[1] ?? 'canceled');
    const data: SessionEventData = {
      account_id: tenant.accountId,
      session: {
        id: sessionId,
        object: 'verification_session',
        status: status as SessionEventData['session']['status'],
        mode: 'test',
        project_id: tenant.projectId ?? newId('project'),
        config_version: 'cfg_00000001',
        created_at: now,
        completed_at: now,
      },
      webhook_events: options.webhookEvents ?? tenant.webhookEvents,
      options: { documentData: false, verifiedChannels: false, formData: false, evidenceLinks: false },
    };
    const event = domainEvents.sessionTransition(type, data, new Date(now));
    const channel = this.channel;
    channel.publish(`${tenant.target.namespace}.events`, type, Buffer.from(JSON.stringify(event)), {
      persistent: true,
      contentType: 'application/json',
    });
    await channel.waitForConfirms();
    return { eventId: event.id, sessionId };
  }

  async close(): Promise<void> {
    await this.connection?.close().catch(() => undefined);
    this.connection = null;
    this.channel = null;
  }
}

/**
 * The messages of one endpoint as the webhooks service stores them (oldest first): what is still to be
 * attempted (`pending`) and what is closed. A closed message is never claimed again.
 */
export async function messagesOf(endpointId: string, databaseUrl = testEnv().databaseUrl) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ kind: string; status: string; attempts: number }>(
      'SELECT kind, status, attempts FROM webhooks.messages WHERE endpoint_id = $1 ORDER BY created_at, id',
      [endpointId],
    );
    return rows;
  } finally {
    await db.end();
  }
}

/** Wakes every dispatcher of a stack's database (the NOTIFY they listen on), as new messages do. */
export async function notifyDispatchers(databaseUrl: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('SELECT pg_notify($1, $2)', [DUE_CHANNEL, '']);
  } finally {
    await db.end();
  }
}

/**
 * A barrier for "nothing else reaches this receiver": a canceled event of the tenant published after
 * whatever must not arrive (and let through by the config layer), awaited at the same receiver. The
 * broker hands events to the webhooks service in the order published, and its dispatcher claims an
 * endpoint's messages in the order they came due: the marker makes the whole way (queue, fan-out,
 * dispatch, request) after the event that must not arrive was handed over, so a message wrongly queued
 * for that event has reached the receiver by then. Returns the marker's event id, for the test to leave
 * out of what it asserts.
 */
export async function deliveredMarker(tenant: Tenant, publisher: EventPublisher, receiver: Receiver): Promise<string> {
  const marker = await publisher.publish(tenant, 'verification_session.canceled', {
    webhookEvents: ['verification_session.canceled'],
  });
  // The receiver is in this process: look often.
  await eventually(() => receiver.hits.some((hit) => hit.body.id === marker.eventId), 15_000, 'the marker event', 25);
  return marker.eventId;
}

/** Creates a session through the gateway and cancels it: a real `verification_session.canceled`. */
export async function createAndCancelSession(tenant: Tenant): Promise<{ sessionId: string; eventId: string }> {
  const created = await call(tenant, 'POST', '/v1/verification-sessions', { project_id: tenant.projectId });
  if (created.status !== 201) throw new Error(`session creation failed: ${created.status} ${created.text}`);
  const canceled = await call(tenant, 'POST', `/v1/verification-sessions/${created.body.id}/cancel`);
  if (canceled.status !== 200) throw new Error(`cancel failed: ${canceled.status} ${canceled.text}`);
  return { sessionId: created.body.id, eventId: eventId(tenant.accountId, created.body.id, 'verification_session.canceled') };
}

/**
 * A `verification_session.canceled` event for the tenant: through the real sessions service when it
 * runs, otherwise published as the sessions service would.
 */
export async function emitCanceled(tenant: Tenant, publisher: EventPublisher): Promise<{ sessionId: string; eventId: string }> {
  if (SESSIONS_AVAILABLE && tenant.projectId) return createAndCancelSession(tenant);
  return publisher.publish(tenant, 'verification_session.canceled');
}

/**
 * A private stack whose services start one after the other: the kit's migration runner fails
 * (instead of waiting) when two services of one database migrate at the same moment.
 */
export async function startPrivateStack(options: StackOptions & { database: string; services: ServiceName[] }): Promise<Stack> {
  // A fresh database: retries left over from an earlier run must not reach this run's receivers.
  const admin = new pg.Client({ connectionString: infraFromEnv().postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${options.database.replace(/"/g, '')}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const [first, ...rest] = options.services.filter((name) => name !== 'sessions' || SESSIONS_AVAILABLE);
  const stack = await Stack.start({ ...options, services: [first!] });
  try {
    for (const name of rest) await stack.startService(name);
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return stack;
}
