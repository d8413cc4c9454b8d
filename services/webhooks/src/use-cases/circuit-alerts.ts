import { domainEvents, type WebhookEndpointId } from '@idv/contracts';
import { enqueueEvent, withTransaction, type Pool } from '@idv/kit';
import { feedCircuit, type CircuitFed, type CircuitTransition } from '../adapters/endpoints.repository';

/**
 * Feeds an endpoint's circuit with an attempt's outcome and, in the same transaction, writes the event of
 * the transition it made (`webhook_endpoint.circuit_opened` / `.circuit_closed`) to the outbox: the
 * transition is decided on the endpoint's locked row, so with any number of replicas and workers each
 * opening and each closing is announced once, and only if the change commits.
 */
export function feedEndpointCircuit(
  pool: Pool,
  endpointId: WebhookEndpointId,
  input: { succeeded: boolean; threshold: number; openMs: number },
): Promise<CircuitFed> {
  return withTransaction(pool, async (tx) => {
    const fed = await feedCircuit(tx, endpointId, input);
    if (fed.transition) await enqueueEvent(tx, circuitEvent(fed.transition));
    return fed;
  });
}

function circuitEvent(transition: CircuitTransition) {
  const data = {
    account_id: transition.accountId,
    endpoint_id: transition.endpointId,
    url: transition.url,
    at: transition.at.toISOString(),
    next_attempt_at: transition.kind === 'opened' ? transition.nextAttemptAt.toISOString() : null,
  };
  return transition.kind === 'opened'
    ? domainEvents.webhookCircuitOpened(data, transition.at)
    : domainEvents.webhookCircuitClosed(data, transition.at);
}
