import type { DomainEvent } from '@idv/contracts';
import type { HandlerOutcome, Logger, Pool } from '@idv/kit';
import { accountSubscribes } from '../adapters/endpoints.repository';
import { fanOutSessionEvent } from '../use-cases/fan-out';
import { SubscriptionGate } from '../use-cases/subscription-gate';

export const SESSION_EVENTS_QUEUE = 'webhooks.session-events';
export const SESSION_EVENTS_BINDING = 'verification_session.*';

/** The queue consumer: each session event fanned out, acked after commit; a malformed one that a subscription lets through dead-lettered. */
export function sessionEventHandler(deps: { pool: Pool; logger: Logger; onQueued: () => void }) {
  const subscriptions = new SubscriptionGate((accountId, type) => accountSubscribes(deps.pool, accountId, type));
  return async (event: DomainEvent): Promise<HandlerOutcome> => {
    const result = await fanOutSessionEvent({ ...deps, subscriptions }, event);
    if (result.kind !== 'malformed') return 'ack';
    deps.logger.error({ event_id: event.id, type: event.type, issues: result.issues }, 'malformed session event; dead-lettered');
    return 'dead';
  };
}
