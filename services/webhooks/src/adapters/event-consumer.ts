import { SessionEventDataSchema, eventId, type DomainEvent } from '@idv/contracts';
import type { HandlerOutcome, Logger, Pool } from '@idv/kit';
import { isSessionEventType } from '../domain/fan-out';
import * as repo from './webhooks.repository';

export const SESSION_EVENTS_QUEUE = 'webhooks.session-events';
export const SESSION_EVENTS_BINDING = 'verification_session.*';

/**
 * Fan-out of one session domain event: in one statement, the event and one message per endpoint
 * where both subscription layers match (the frozen config's webhookEvents and the endpoint's
 * events). Redelivery of the same broker message inserts nothing new. Acked after commit.
 */
export function sessionEventHandler(deps: { pool: Pool; logger: Logger; onQueued: () => void }) {
  return async (event: DomainEvent): Promise<HandlerOutcome> => {
    if (!isSessionEventType(event.type)) return 'ack';
    const parsed = SessionEventDataSchema.safeParse(event.data);
    if (!parsed.success) {
      deps.logger.error(
        { event_id: event.id, type: event.type, issues: parsed.error.issues },
        'malformed session event; dead-lettered',
      );
      return 'dead';
    }
    const data = parsed.data;
    if (!data.webhook_events.includes(event.type)) return 'ack';
    // The public id is derived here too, so it is the same for every retry and every endpoint
    // whatever the emitter put in the broker envelope.
    const id = eventId(data.account_id, data.session.id, event.type);
    const queued = await repo.fanOut(deps.pool, {
      id,
      accountId: data.account_id,
      type: event.type,
      data: data.session,
      options: data.options,
      occurredAt: event.occurred_at,
    });
    if (queued > 0) deps.onQueued();
    return 'ack';
  };
}
