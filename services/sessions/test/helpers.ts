import amqp from 'amqplib';
import { INTERNAL_HEADERS } from '@idv/contracts';
import { OpsClient } from '@idv/ops';
import { Stack, api, buildTenant, testEnv, waitFor, type StackOptions } from '@idv/testkit';

/** Polls `fn` until `done(value)` holds (testkit's `waitFor`), reporting the last value on timeout. */
export async function until<T>(fn: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  let last: T | undefined;
  try {
    return await waitFor(
      async () => {
        last = await fn();
        return done(last) ? last : undefined;
      },
      timeoutMs,
      50,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last value: ${JSON.stringify(last)}`);
  }
}

/** A call to the sessions service's internal API, as the flow-runner makes it. */
export function internal(method: string, path: string, body?: unknown) {
  const env = testEnv();
  return api(method, path, {
    baseUrl: env.sessionsUrl,
    headers: { [INTERNAL_HEADERS.token]: env.internalToken },
    ...(body === undefined ? {} : { body }),
  });
}

export function tokenOf(url: string): string {
  const token = /\/l\/(lt_[A-Za-z0-9_-]+)$/.exec(url)?.[1];
  if (!token) throw new Error(`no link token in ${url}`);
  return token;
}

export async function createSession(key: string, projectId: string, extra: Record<string, unknown> = {}, headers = {}) {
  return api('POST', '/v1/verification-sessions', { key, body: { project_id: projectId, ...extra }, headers });
}

/** A tenant plus one session created with its test key (or live key). */
export async function tenantWithSession(options: Parameters<typeof buildTenant>[0] & { live?: boolean } = {}) {
  const tenant = await buildTenant(options);
  const created = await createSession(options.live ? tenant.liveKey : tenant.testKey, tenant.project.id);
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.text}`);
  return { ...tenant, session: created.body };
}

export interface ReceivedEvent {
  id: string;
  type: string;
  occurred_at: string;
  data: any;
  messageId?: string;
}

/**
 * A temporary exclusive queue bound to the stack's events exchange: collects every session event
 * published while the test runs.
 */
export class EventTap {
  readonly events: ReceivedEvent[] = [];
  private constructor(private readonly connection: amqp.ChannelModel) {}

  static async open(namespace = testEnv().namespace, url = testEnv().amqpUrl): Promise<EventTap> {
    const connection = await amqp.connect(url);
    const channel = await connection.createChannel();
    const exchange = `${namespace}.events`;
    await channel.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(queue, exchange, 'verification_session.#');
    const tap = new EventTap(connection);
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        const event = JSON.parse(message.content.toString('utf8')) as ReceivedEvent;
        tap.events.push({ ...event, messageId: message.properties.messageId as string | undefined });
      },
      { noAck: true },
    );
    return tap;
  }

  /** Events of one session, deduplicated by event id (delivery is at least once). */
  of(sessionId: string): ReceivedEvent[] {
    const byId = new Map<string, ReceivedEvent>();
    for (const e of this.events) if (e.data?.session?.id === sessionId && !byId.has(e.id)) byId.set(e.id, e);
    return [...byId.values()];
  }

  async waitFor(sessionId: string, count: number, timeoutMs = 15_000): Promise<ReceivedEvent[]> {
    return until(
      () => Promise.resolve(this.of(sessionId)),
      (events) => events.length >= count,
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    await this.connection.close().catch(() => undefined);
  }
}

/**
 * A barrier for "no further event of this session": a session of the same account canceled now puts
 * its event in the outbox after every event already written; once the tap has it, they have arrived too.
 */
export async function outboxMarker(tap: EventTap, key: string, projectId: string): Promise<void> {
  const marker = await createSession(key, projectId);
  if (marker.status !== 201) throw new Error(`marker create failed: ${marker.status} ${marker.text}`);
  const canceled = await api('POST', `/v1/verification-sessions/${marker.body.id}/cancel`, { key });
  if (canceled.status !== 200) throw new Error(`marker cancel failed: ${canceled.status} ${canceled.text}`);
  await tap.waitFor(marker.body.id, 1);
}

export function opsFor(stack: Stack): OpsClient {
  return new OpsClient({
    keysUrl: stack.url('keys'),
    sessionsUrl: stack.url('sessions'),
    internalToken: stack.env.INTERNAL_TOKEN!,
  });
}

/** A private stack (keys, sessions, gateway) on a database of its own (testkit drops it on stop). */
export function startPrivateStack(options: Omit<StackOptions, 'services'>): Promise<Stack> {
  // Small pools: PostgreSQL's 100 connections are shared by every stack running on the machine.
  return Stack.start({ ...options, env: { DATABASE_POOL_MAX: '5', ...options.env }, services: ['keys', 'sessions', 'gateway'] });
}
