import type { AccountId, WebhookDeliveryId } from '@idv/contracts';
import { withTransaction, type Pool } from '@idv/kit';
import { insertAdminMessage, notifyDue } from '../adapters/messages.repository';
import { takeAdminQuotaOrRefuse } from './admin-quota';
import { getDelivery } from './delivery-log';
import { getEndpoint } from './endpoints';

/**
 * The event of that delivery to its endpoint again, once: never deduplicated, never retried, sent
 * even while the circuit is open (a redelivered `test` stays a `test`).
 */
export async function redeliver(
  deps: { pool: Pool; onQueued: () => void },
  accountId: AccountId,
  deliveryId: WebhookDeliveryId,
): Promise<void> {
  await takeAdminQuotaOrRefuse(deps.pool, accountId);
  const delivery = await getDelivery(deps, accountId, deliveryId);
  await getEndpoint(deps, accountId, delivery.endpointId);
  await withTransaction(deps.pool, async (tx) => {
    await insertAdminMessage(tx, accountId, {
      endpointId: delivery.endpointId,
      eventId: delivery.eventId,
      kind: delivery.eventType === 'test' ? 'test' : 'redeliver',
    });
    await notifyDue(tx);
  });
  deps.onQueued();
}
