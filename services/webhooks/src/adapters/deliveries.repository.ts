import type { AccountId, EventId, WebhookDeliveryId, WebhookEndpointId, WebhookEventType } from '@idv/contracts';
import type { Cursor, Queryable } from '@idv/kit';
import type { DeliveryRecord } from '../domain/delivery';
import type { DeliveryError, DeliveryStatus, MessageId } from '../domain/message';

/** The delivery log, read side (the dispatcher writes it with the schedule: messages.repository.ts). */

interface DeliveryRow {
  id: WebhookDeliveryId;
  account_id: AccountId;
  endpoint_id: WebhookEndpointId;
  message_id: MessageId;
  event_id: EventId;
  event_type: WebhookEventType;
  attempt: number;
  status: DeliveryStatus;
  http_status: number | null;
  duration_ms: number | null;
  error: DeliveryError | null;
  failure_reason: string | null;
  created_at: Date;
}

function toRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    messageId: row.message_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.status,
    httpStatus: row.http_status,
    durationMs: row.duration_ms,
    error: row.error,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
  };
}

/** Newest first, all endpoints or one; one row more than `limit`, so the caller knows whether a next page exists. */
export async function listDeliveries(
  db: Queryable,
  accountId: AccountId,
  page: { endpointId?: WebhookEndpointId; limit: number; after: Cursor | null },
): Promise<DeliveryRecord[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT * FROM deliveries
     WHERE account_id = $1 AND ($2::text IS NULL OR endpoint_id = $2)
       AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::text))
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [accountId, page.endpointId ?? null, page.after?.createdAt ?? null, page.after?.id ?? null, page.limit + 1],
  );
  return rows.map(toRecord);
}

/** By primary key, ownership checked on the row (the planner must never trade the key for the account index). */
export async function findDelivery(db: Queryable, accountId: AccountId, id: WebhookDeliveryId): Promise<DeliveryRecord | null> {
  const { rows } = await db.query<DeliveryRow>(`SELECT * FROM deliveries WHERE id = $1`, [id]);
  const row = rows[0];
  return row && row.account_id === accountId ? toRecord(row) : null;
}
