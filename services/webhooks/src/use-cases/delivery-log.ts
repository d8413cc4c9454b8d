import { SESSION_EVENT_TYPES, eventId, type AccountId, type WebhookDeliveryId, type WebhookEndpointId } from '@idv/contracts';
import { notFound, type Cursor, type Pool } from '@idv/kit';
import * as deliveries from '../adapters/deliveries.repository';
import { findEndpoint } from '../adapters/endpoints.repository';
import type { DeliveryFilter, DeliveryRecord } from '../domain/delivery';
import { sentRequest, type SentRequest } from '../domain/exchange';

/**
 * A page of the delivery log, newest first (one row more than `limit`: the page says whether there is
 * a next one), with the filters asked for. A filter naming an endpoint the account never had is 404; a
 * deleted one still lists.
 */
export async function listDeliveries(
  deps: { pool: Pool },
  accountId: AccountId,
  page: { endpointId?: WebhookEndpointId; limit: number; after: Cursor | null; filter?: DeliveryFilter },
): Promise<DeliveryRecord[]> {
  if (page.endpointId && !(await findEndpoint(deps.pool, accountId, page.endpointId, { includeDeleted: true }))) {
    throw notFound('webhook endpoint');
  }
  const { sessionId, ...filter } = page.filter ?? {};
  return deliveries.listDeliveries(deps.pool, accountId, {
    ...(page.endpointId ? { endpointId: page.endpointId } : {}),
    ...filter,
    // A session's events have ids derived from the account, the session and the type.
    ...(sessionId ? { eventIds: SESSION_EVENT_TYPES.map((type) => eventId(accountId, sessionId, type)) } : {}),
    limit: page.limit,
    after: page.after,
  });
}

export async function getDelivery(deps: { pool: Pool }, accountId: AccountId, id: WebhookDeliveryId): Promise<DeliveryRecord> {
  const delivery = await deliveries.findDelivery(deps.pool, accountId, id);
  if (!delivery) throw notFound('webhook delivery');
  return delivery;
}

/** One attempt as it went: the request rebuilt as sent (headers with the signature) and the receiver's reply. */
export interface DeliveryAttempt {
  delivery: DeliveryRecord;
  request: SentRequest | null;
  response: { headers: Record<string, string>; body: string; bodyBytes: number } | null;
}

export async function getDeliveryAttempt(
  deps: { pool: Pool },
  accountId: AccountId,
  id: WebhookDeliveryId,
): Promise<DeliveryAttempt> {
  const found = await deliveries.findDeliveryExchange(deps.pool, accountId, id);
  if (!found) throw notFound('webhook delivery');
  const { delivery, exchange } = found;
  return {
    delivery,
    request: sentRequest({ id: delivery.eventId, type: delivery.eventType }, exchange),
    response:
      exchange.responseHeaders && exchange.responseBody !== null
        ? { headers: exchange.responseHeaders, body: exchange.responseBody, bodyBytes: exchange.responseBodyBytes ?? 0 }
        : null,
  };
}
