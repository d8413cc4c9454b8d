import { DOMAIN_EVENT_DATA_SCHEMAS, SessionEventDataSchema, eventId, type DomainEvent, type z } from '@idv/contracts';
import type { Pool } from '@idv/kit';
import { fanOut } from '../adapters/messages.repository';
import { isSessionEventType } from '../domain/fan-out';
import type { SubscriptionGate } from './subscription-gate';

/** The two fields both subscription layers need, read before the session snapshot is parsed. */
const SessionEventRoutingSchema = SessionEventDataSchema.pick({ account_id: true, webhook_events: true });

export type FanOutResult =
  /** Not ours to send: another type, one the session's frozen configuration does not fire, or one no endpoint of the account subscribes to. */
  { kind: 'ignored' } | { kind: 'malformed'; issues: z.core.$ZodIssue[] } | { kind: 'fanned_out'; queued: number };

/**
 * Fan-out of one session domain event: in one statement, the event and one message per endpoint
 * where both subscription layers match (the frozen config's webhookEvents and the endpoint's
 * events). The same event again inserts nothing. An event that neither layer lets through (most
 * events: few projects subscribe to every type) is known from two fields and, for the endpoint
 * layer, one index probe (`subscriptions`): it is acked without the full parse of its snapshot, which
 * is then not validated (it would be stored nowhere).
 */
export async function fanOutSessionEvent(
  deps: { pool: Pool; onQueued: () => void; subscriptions?: SubscriptionGate },
  event: DomainEvent,
): Promise<FanOutResult> {
  if (!isSessionEventType(event.type)) return { kind: 'ignored' };
  const routing = SessionEventRoutingSchema.safeParse(event.data);
  // Unreadable routing fields fall through to the full parse, which reports the event as malformed.
  if (routing.success) {
    if (!routing.data.webhook_events.includes(event.type)) return { kind: 'ignored' };
    if (deps.subscriptions && !(await deps.subscriptions.mayDeliver(routing.data.account_id, event.type))) {
      return { kind: 'ignored' };
    }
  }
  const parsed = DOMAIN_EVENT_DATA_SCHEMAS[event.type].safeParse(event.data);
  if (!parsed.success) return { kind: 'malformed', issues: parsed.error.issues };
  const data = parsed.data;
  if (!data.webhook_events.includes(event.type)) return { kind: 'ignored' };
  const accountId = data.account_id;
  // The public id is derived here too, so it is the same for every retry and every endpoint whatever
  // the emitter put in the broker envelope.
  const queued = await fanOut(deps.pool, accountId, {
    id: eventId(accountId, data.session.id, event.type),
    type: event.type,
    data: data.session,
    options: data.options,
    occurredAt: event.occurred_at,
  });
  if (queued > 0) deps.onQueued();
  return { kind: 'fanned_out', queued };
}
