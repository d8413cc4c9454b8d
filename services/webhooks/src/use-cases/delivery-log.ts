import type { AccountId, WebhookDeliveryId, WebhookEndpointId } from '@idv/contracts';
import { notFound, type Cursor, type Pool } from '@idv/kit';
import * as deliveries from '../adapters/deliveries.repository';
import { findEndpoint } from '../adapters/endpoints.repository';
import type { DeliveryRecord } from '../domain/delivery';

/**
 * A page of the delivery log, newest first (one row more than `limit`: the page says whether there is
 * a next one). A filter naming an endpoint the account never had is 404; a deleted one still lists.
 */
export async function listDeliveries(
  deps: { pool: Pool },
  accountId: AccountId,
  page: { endpointId?: WebhookEndpointId; limit: number; after: Cursor | null },
): Promise<DeliveryRecord[]> {
  if (page.endpointId && !(await findEndpoint(deps.pool, accountId, page.endpointId, { includeDeleted: true }))) {
    throw notFound('webhook endpoint');
  }
  return deliveries.listDeliveries(deps.pool, accountId, page);
}

export async function getDelivery(deps: { pool: Pool }, accountId: AccountId, id: WebhookDeliveryId): Promise<DeliveryRecord> {
  const delivery = await deliveries.findDelivery(deps.pool, accountId, id);
  if (!delivery) throw notFound('webhook delivery');
  return delivery;
}
