import type { AccountId, EventId, EvidenceLink, WebhookDeliveryId, WebhookEndpointId, WebhookEventType } from '@idv/contracts';
import type { Cursor, Queryable } from '@idv/kit';
import type { DeliveryExchangeRecord, DeliveryRecord } from '../domain/delivery';
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

interface ExchangeRow {
  sent_at: Date | null;
  request_headers: Record<string, string> | null;
  evidence_links: EvidenceLink[] | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  response_body_bytes: number | null;
  event_data: Record<string, unknown> | null;
}

/** A line of the log without what was sent and received (a page of 100 never reads 100 bodies). */
const LINE_COLUMNS = `id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status, http_status,
  duration_ms, error, failure_reason, created_at`;

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

/** The log's filters as SQL, from parameter `$first` on: the endpoint, then each filter (null: not asked). */
export interface DeliveryQuery {
  endpointId?: WebhookEndpointId;
  status?: DeliveryStatus;
  eventType?: WebhookEventType;
  /** Only these events (a session's: their ids derive from its id). */
  eventIds?: readonly EventId[];
  from?: Date;
  to?: Date;
}

/**
 * Newest first, all endpoints or one, with the filters asked for; one row more than `limit`, so the caller
 * knows whether a next page exists. The endpoint's index serves the order and the time range; a session's
 * events read their own index.
 */
export async function listDeliveries(
  db: Queryable,
  accountId: AccountId,
  page: DeliveryQuery & { limit: number; after: Cursor | null },
): Promise<DeliveryRecord[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${LINE_COLUMNS} FROM deliveries
     WHERE account_id = $1 AND ($2::text IS NULL OR endpoint_id = $2)
       AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::text))
       AND ($6::text IS NULL OR status = $6)
       AND ($7::text IS NULL OR event_type = $7)
       AND ($8::text[] IS NULL OR event_id = ANY ($8::text[]))
       AND ($9::timestamptz IS NULL OR created_at >= $9)
       AND ($10::timestamptz IS NULL OR created_at < $10)
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [
      accountId,
      page.endpointId ?? null,
      page.after?.createdAt ?? null,
      page.after?.id ?? null,
      page.limit + 1,
      page.status ?? null,
      page.eventType ?? null,
      page.eventIds ? [...page.eventIds] : null,
      page.from ?? null,
      page.to ?? null,
    ],
  );
  return rows.map(toRecord);
}

/** By primary key, ownership checked on the row (the planner must never trade the key for the account index). */
export async function findDelivery(db: Queryable, accountId: AccountId, id: WebhookDeliveryId): Promise<DeliveryRecord | null> {
  const { rows } = await db.query<DeliveryRow>(`SELECT ${LINE_COLUMNS} FROM deliveries WHERE id = $1`, [id]);
  const row = rows[0];
  return row && row.account_id === accountId ? toRecord(row) : null;
}

/** One attempt with what it sent and received, and its event as stored now; ownership checked on the row. */
export async function findDeliveryExchange(
  db: Queryable,
  accountId: AccountId,
  id: WebhookDeliveryId,
): Promise<{ delivery: DeliveryRecord; exchange: DeliveryExchangeRecord } | null> {
  const { rows } = await db.query<DeliveryRow & ExchangeRow>(
    `SELECT d.*, ev.data AS event_data FROM deliveries d LEFT JOIN events ev ON ev.id = d.event_id WHERE d.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row || row.account_id !== accountId) return null;
  return {
    delivery: toRecord(row),
    exchange: {
      sentAt: row.sent_at,
      requestHeaders: row.request_headers,
      evidenceLinks: row.evidence_links,
      responseHeaders: row.response_headers,
      responseBody: row.response_body,
      responseBodyBytes: row.response_body_bytes,
      eventData: row.event_data,
    },
  };
}
