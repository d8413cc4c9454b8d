import type { AccountId, WebhookEndpointId } from '@idv/contracts';
import { withTransaction, type Pool } from '@idv/kit';
import { insertAdminMessage, insertEvent, notifyDue } from '../adapters/messages.repository';
import { testEventId, testEventObject } from '../domain/envelope';
import { takeAdminQuotaOrRefuse } from './admin-quota';
import { getEndpoint } from './endpoints';

/**
 * Queues one `test` event to the endpoint, sent once whatever its events and its circuit. The event
 * and its message commit together and wake the dispatchers.
 */
export async function sendTestEvent(
  deps: { pool: Pool; onQueued: () => void },
  accountId: AccountId,
  endpointId: WebhookEndpointId,
): Promise<void> {
  await takeAdminQuotaOrRefuse(deps.pool, accountId);
  const endpoint = await getEndpoint(deps, accountId, endpointId);
  await withTransaction(deps.pool, async (tx) => {
    const eventId = testEventId();
    await insertEvent(tx, accountId, {
      id: eventId,
      type: 'test',
      data: testEventObject(endpoint.id),
      options: {},
      occurredAt: new Date().toISOString(),
    });
    await insertAdminMessage(tx, accountId, { endpointId: endpoint.id, eventId, kind: 'test' });
    await notifyDue(tx);
  });
  deps.onQueued();
}
