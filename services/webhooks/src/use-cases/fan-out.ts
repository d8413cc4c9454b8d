import { DOMAIN_EVENT_DATA_SCHEMAS, eventId, type DomainEvent, type z } from '@idv/contracts';
import type { Pool } from '@idv/kit';
import { fanOut } from '../adapters/messages.repository';
import { isSessionEventType } from '../domain/fan-out';

export type FanOutResult =
  /** Not ours to send: another type, or one the session's frozen configuration does not fire. */
  { kind: 'ignored' } | { kind: 'malformed'; issues: z.core.$ZodIssue[] } | { kind: 'fanned_out'; queued: number };

/**
 * Fan-out of one session domain event: in one statement, the event and one message per endpoint
 * where both subscription layers match (the frozen config's webhookEvents and the endpoint's
 * events). The same event again inserts nothing.
 */
export async function fanOutSessionEvent(deps: { pool: Pool; onQueued: () => void }, event: DomainEvent): Promise<FanOutResult> {
  if (!isSessionEventType(event.type)) return { kind: 'ignored' };
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
