import type { AccountId, WebhookEndpointId } from '@idv/contracts';
import type { Pool } from '@idv/kit';
import { pendingByEndpoint } from '../adapters/messages.repository';
import { circuitOf, type CircuitView } from '../domain/circuit';
import type { EndpointRecord } from '../domain/endpoint';

/** An endpoint's circuit, what waits for it and when it will next try; and until when its previous secret still signs. */
export interface EndpointState {
  circuit: CircuitView;
  waiting: number;
  /** The earliest due time of its waiting messages (a skipped attempt moves it on by its backoff). */
  nextAttemptAt: Date | null;
  previousSecretExpiresAt: Date | null;
}

/** The state of each endpoint of a page, in one query of the schedule. */
export async function endpointStates(
  deps: { pool: Pool },
  accountId: AccountId,
  endpoints: readonly EndpointRecord[],
  now = new Date(),
): Promise<Map<WebhookEndpointId, EndpointState>> {
  const pending = await pendingByEndpoint(
    deps.pool,
    accountId,
    endpoints.map((endpoint) => endpoint.id),
  );
  return new Map(
    endpoints.map((endpoint) => {
      const waiting = pending.get(endpoint.id);
      const overlap = endpoint.previousSecretExpiresAt;
      return [
        endpoint.id,
        {
          circuit: circuitOf(endpoint, now),
          waiting: waiting?.waiting ?? 0,
          nextAttemptAt: waiting?.nextAttemptAt ?? null,
          previousSecretExpiresAt: overlap && overlap.getTime() > now.getTime() ? overlap : null,
        },
      ];
    }),
  );
}
