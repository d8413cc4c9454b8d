import type { AccountId, EventId, WebhookEndpointId, WebhookEventType } from '@idv/contracts';
import { currentTraceHeaders, type Queryable } from '@idv/kit';
import type { EndpointStatus } from '../domain/endpoint';
import type { AttemptExchange } from '../domain/exchange';
import type { AttemptRecord, ClaimedMessage, MessageId, MessageKind, SuccessRecord } from '../domain/message';
import { msInterval } from './sql';

/**
 * The events to send and the schedule of their messages: one message per (event, endpoint), due at
 * `next_attempt_at`. The API and the fan-out write them for one account; the dispatcher's functions
 * (claim, record, release) work across accounts, each guarded by the claim it holds.
 */

/** NOTIFY channel the dispatchers LISTEN on: something is due now. */
export const DUE_CHANNEL = 'webhooks_due';

export interface StoredEvent {
  id: EventId;
  type: WebhookEventType;
  data: unknown;
  options: unknown;
  occurredAt: string;
}

export async function insertEvent(db: Queryable, accountId: AccountId, event: StoredEvent): Promise<void> {
  await db.query(
    `INSERT INTO events (id, account_id, type, data, options, occurred_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO NOTHING`,
    [event.id, accountId, event.type, JSON.stringify(event.data), JSON.stringify(event.options), event.occurredAt],
  );
}

/** A one-shot message (`test`, `redeliver`): never deduplicated, due at once. */
export async function insertAdminMessage(
  db: Queryable,
  accountId: AccountId,
  message: { endpointId: WebhookEndpointId; eventId: EventId; kind: 'test' | 'redeliver' },
): Promise<void> {
  const trace = currentTraceHeaders();
  await db.query(
    `INSERT INTO messages (account_id, endpoint_id, event_id, kind, traceparent, tracestate) VALUES ($1, $2, $3, $4, $5, $6)`,
    [accountId, message.endpointId, message.eventId, message.kind, trace?.traceparent ?? null, trace?.tracestate ?? null],
  );
}

/** Wakes the dispatchers at commit. */
export async function notifyDue(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_notify('${DUE_CHANNEL}', '')`);
}

/** The messages still waiting for a deleted endpoint are dropped. */
export async function cancelPendingMessages(db: Queryable, accountId: AccountId, endpointId: WebhookEndpointId): Promise<void> {
  await db.query(
    `UPDATE messages SET status = 'canceled', claim_token = NULL, updated_at = clock_timestamp()
     WHERE endpoint_id = $2 AND account_id = $1 AND status = 'pending'`,
    [accountId, endpointId],
  );
}

/**
 * The whole fan-out of one event in one statement (atomic, one round trip): the event row and one
 * automatic message per active endpoint of the account subscribed to the type, then a NOTIFY for the
 * dispatchers. A repeated event inserts nothing. Returns how many messages were new.
 */
export async function fanOut(db: Queryable, accountId: AccountId, event: StoredEvent): Promise<number> {
  // The consumed event's trace: its deliveries are spans of the trace that caused the event.
  const trace = currentTraceHeaders();
  const { rows } = await db.query<{ queued: number }>(
    `WITH eps AS (
       SELECT id FROM endpoints
       WHERE account_id = $2 AND status = 'active' AND deleted_at IS NULL AND $3 = ANY (events)
     ), ev AS (
       INSERT INTO events (id, account_id, type, data, options, occurred_at)
       SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM eps)
       ON CONFLICT (id) DO NOTHING
     ), ins AS (
       INSERT INTO messages (account_id, endpoint_id, event_id, kind, traceparent, tracestate)
       SELECT $2, eps.id, $1, 'event', $7::text, $8::text FROM eps
       ON CONFLICT (event_id, endpoint_id) WHERE kind = 'event' DO NOTHING
       RETURNING 1
     ), queued AS (SELECT count(*)::int AS n FROM ins)
     SELECT n AS queued, CASE WHEN n > 0 THEN pg_notify('${DUE_CHANNEL}', '') END AS notified FROM queued`,
    [
      event.id,
      accountId,
      event.type,
      JSON.stringify(event.data),
      JSON.stringify(event.options),
      event.occurredAt,
      trace?.traceparent ?? null,
      trace?.tracestate ?? null,
    ],
  );
  return rows[0]?.queued ?? 0;
}

interface ClaimedRow {
  id: MessageId;
  account_id: AccountId;
  endpoint_id: WebhookEndpointId;
  event_id: EventId;
  kind: MessageKind;
  attempts: number;
  last_wait_ms: number | null;
  event_type: WebhookEventType;
  event_data: Record<string, unknown>;
  event_occurred_at: Date;
  evidence_links: boolean;
  url: string;
  endpoint_status: EndpointStatus;
  endpoint_deleted: boolean;
  secret_enc: string;
  previous_secret_enc: string | null;
  circuit_open: boolean;
  consecutive_failures: number;
  circuit_tripped: boolean;
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * Claims due messages: locks them with SKIP LOCKED (replicas never take the same row) and pushes
 * next_attempt_at forward by the lease, tagged with this claim's token. If the replica dies, the
 * message comes due again when the lease ends.
 */
/**
 * A claimed message, when it had come due (for the job's lag), and how many claims before this one ended
 * without an outcome (a failure or a replica that died holding it: the job's dead-letter count).
 */
export type DueMessage = ClaimedMessage & { dueAt: Date; earlierFailures: number };

export async function claimDue(
  db: Queryable,
  claim: { limit: number; excludeEndpoints: string[]; leaseMs: number; token: string },
): Promise<DueMessage[]> {
  const { rows } = await db.query<ClaimedRow & { due_at: Date; earlier_failures: number }>(
    `WITH due AS (
       SELECT id, next_attempt_at AS due_at FROM messages
       WHERE status = 'pending' AND next_attempt_at <= clock_timestamp() AND NOT (endpoint_id = ANY ($2::text[]))
       ORDER BY next_attempt_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE messages m SET next_attempt_at = clock_timestamp() + ${msInterval('$3')}, claim_token = $4,
                             unfinished_claims = m.unfinished_claims + 1, updated_at = clock_timestamp()
       FROM due WHERE m.id = due.id
       RETURNING m.*
     )
     SELECT c.id, c.account_id, c.endpoint_id, c.event_id, c.kind, c.attempts, c.last_wait_ms,
            ev.type AS event_type, ev.data AS event_data, ev.occurred_at AS event_occurred_at,
            COALESCE((ev.options->>'evidenceLinks')::boolean, false) AS evidence_links,
            e.url, e.status AS endpoint_status, e.deleted_at IS NOT NULL AS endpoint_deleted,
            e.secret_enc,
            CASE WHEN e.previous_secret_expires_at > clock_timestamp() THEN e.previous_secret_enc END AS previous_secret_enc,
            COALESCE(e.circuit_open_until > clock_timestamp(), false) AS circuit_open,
            e.consecutive_failures, (e.circuit_opened_at IS NOT NULL OR e.circuit_open_until IS NOT NULL) AS circuit_tripped,
            d.due_at, c.unfinished_claims - 1 AS earlier_failures, c.traceparent, c.tracestate
     FROM claimed c
     JOIN due d ON d.id = c.id
     JOIN endpoints e ON e.id = c.endpoint_id
     JOIN events ev ON ev.id = c.event_id`,
    [claim.limit, claim.excludeEndpoints, claim.leaseMs, claim.token],
  );
  return rows.map((row) => ({
    dueAt: row.due_at,
    earlierFailures: row.earlier_failures,
    id: row.id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    kind: row.kind,
    attempts: row.attempts,
    lastWaitMs: row.last_wait_ms,
    eventType: row.event_type,
    eventData: row.event_data,
    eventOccurredAt: row.event_occurred_at,
    evidenceLinks: row.evidence_links,
    url: row.url,
    endpointStatus: row.endpoint_status,
    endpointDeleted: row.endpoint_deleted,
    secretEnc: row.secret_enc,
    previousSecretEnc: row.previous_secret_enc,
    circuitOpen: row.circuit_open,
    consecutiveFailures: row.consecutive_failures,
    circuitTripped: row.circuit_tripped,
    claimToken: claim.token,
    traceContext: row.traceparent ? { traceparent: row.traceparent, tracestate: row.tracestate } : null,
  }));
}

/** Gives claims back at once (this replica cannot send them now). */
export async function releaseClaims(db: Queryable, ids: MessageId[], token: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE messages SET next_attempt_at = clock_timestamp(), claim_token = NULL,
                         unfinished_claims = greatest(unfinished_claims - 1, 0)
     WHERE id = ANY ($1::text[]) AND claim_token = $2 AND status = 'pending'`,
    [ids, token],
  );
}

/** Milliseconds until the earliest pending message is due (negative when overdue), null if none. */
export async function nextDueInMs(db: Queryable): Promise<number | null> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT (extract(epoch FROM (min(next_attempt_at) - clock_timestamp())) * 1000)::float8 AS ms
     FROM messages WHERE status = 'pending'`,
  );
  return rows[0]?.ms ?? null;
}

/** The message will not be sent (its endpoint is gone or disabled); only while this claim holds it. */
export async function cancelMessage(db: Queryable, id: MessageId, token: string): Promise<void> {
  await db.query(`UPDATE messages SET status = 'canceled', claim_token = NULL WHERE id = $1 AND claim_token = $2`, [id, token]);
}

/** The delivery log's columns of what an attempt sent and received (migration 1796410000000). */
const EXCHANGE_COLUMNS = 'sent_at, request_headers, evidence_links, response_headers, response_body, response_body_bytes';

type ExchangeValues = [Date | null, string | null, string | null, string | null, string | null, number | null];

/** An attempt's exchange as the values of EXCHANGE_COLUMNS (the json columns as text, in the order sent). */
function exchangeValues(exchange: AttemptExchange | null): ExchangeValues {
  if (!exchange) return [null, null, null, null, null, null];
  const { reply } = exchange;
  return [
    exchange.sentAt,
    JSON.stringify(exchange.requestHeaders),
    exchange.evidenceLinks ? JSON.stringify(exchange.evidenceLinks) : null,
    reply ? JSON.stringify(reply.headers) : null,
    reply ? reply.body : null,
    reply ? reply.bodyBytes : null,
  ];
}

/** Rows of values as one array per column (for `unnest`). */
function exchangeColumns(rows: ExchangeValues[]): unknown[][] {
  return [0, 1, 2, 3, 4, 5].map((column) => rows.map((row) => row[column]));
}

/**
 * Logs one attempt and moves the message on, in one statement (atomic), only if this replica still
 * holds the claim. Returns false when the claim was lost (the lease ran out and another took it).
 */
export async function recordAttempt(db: Queryable, r: AttemptRecord): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>(
    `WITH m AS (
       UPDATE messages SET
         status = $3, attempts = $4,
         last_wait_ms = COALESCE($5::int, last_wait_ms),
         next_attempt_at = CASE WHEN $5::int IS NULL THEN next_attempt_at ELSE clock_timestamp() + ${msInterval('$5')} END,
         claim_token = NULL, unfinished_claims = 0, updated_at = clock_timestamp()
       WHERE id = $1 AND claim_token = $2
       RETURNING id, account_id, endpoint_id, event_id
     )
     INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status,
                             http_status, duration_ms, error, failure_reason, ${EXCHANGE_COLUMNS})
     SELECT $6, m.account_id, m.endpoint_id, m.id, m.event_id, $7, $8, $9, $10, $11, $12, $13,
            $14, $15::json, $16::json, $17::json, $18, $19 FROM m
     RETURNING id`,
    [
      r.messageId,
      r.claimToken,
      r.messageStatus,
      r.attemptsUsed,
      r.waitMs,
      r.deliveryId,
      r.eventType,
      r.attempt,
      r.deliveryStatus,
      r.httpStatus,
      r.durationMs,
      r.error,
      r.failureReason,
      ...exchangeValues(r.exchange),
    ],
  );
  return rows.length > 0;
}

/** Many successful automatic attempts in one statement (the hot path of a healthy system). */
export async function recordSuccesses(db: Queryable, records: readonly SuccessRecord[]): Promise<number> {
  const { rowCount } = await db.query(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[],
                            $8::timestamptz[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int[])
         AS t (message_id, token, delivery_id, event_type, attempt, http_status, duration_ms,
               sent_at, request_headers, evidence_links, response_headers, response_body, response_body_bytes)
     ), m AS (
       UPDATE messages SET status = 'succeeded', attempts = input.attempt, claim_token = NULL, unfinished_claims = 0,
                           updated_at = clock_timestamp()
       FROM input WHERE messages.id = input.message_id AND messages.claim_token = input.token
       RETURNING messages.id, messages.account_id, messages.endpoint_id, messages.event_id
     )
     INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status, http_status, duration_ms,
                             ${EXCHANGE_COLUMNS})
     SELECT input.delivery_id, m.account_id, m.endpoint_id, m.id, m.event_id, input.event_type, input.attempt, 'succeeded',
            input.http_status, input.duration_ms, input.sent_at, input.request_headers::json, input.evidence_links::json,
            input.response_headers::json, input.response_body, input.response_body_bytes
     FROM m JOIN input ON input.message_id = m.id`,
    [
      records.map((r) => r.messageId),
      records.map((r) => r.claimToken),
      records.map((r) => r.deliveryId),
      records.map((r) => r.eventType),
      records.map((r) => r.attempt),
      records.map((r) => r.httpStatus),
      records.map((r) => r.durationMs),
      ...exchangeColumns(records.map((r) => exchangeValues(r.exchange))),
    ],
  );
  return rowCount ?? 0;
}

/** The poison message whose bookkeeping kept failing is set aside as dead; only while this claim holds it. */
export async function deadLetterMessage(db: Queryable, id: MessageId, token: string): Promise<void> {
  await db.query(
    `UPDATE messages SET status = 'dead', claim_token = NULL, updated_at = clock_timestamp() WHERE id = $1 AND claim_token = $2`,
    [id, token],
  );
}

/** Messages due now and when the oldest of them came due: the dispatch job's queue depth and age. */
export async function dueBacklog(db: Queryable): Promise<{ depth: number; oldestDueAt: Date | null }> {
  const { rows } = await db.query<{ depth: number; oldest: Date | null }>(
    `SELECT count(*)::int AS depth, min(next_attempt_at) AS oldest FROM messages
      WHERE status = 'pending' AND next_attempt_at <= clock_timestamp()`,
  );
  return { depth: rows[0]?.depth ?? 0, oldestDueAt: rows[0]?.oldest ?? null };
}

export async function countWaiting(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE status = 'pending'`);
  return rows[0]?.n ?? 0;
}

/**
 * Retention of the document data an event carries (`result.document`, when the project opted in): one
 * batch of events older than `cutoff` loses it and says when (`result.document_removed_at`, as the
 * session's GET does), so a later redelivery sends no personal data. Replicas skip each other's rows.
 */
export async function removeDocumentsOccurredBefore(
  db: Queryable,
  cutoff: Date,
  removedAt: Date,
  limit: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE events
        SET data = jsonb_set(data, '{result}', ((data -> 'result') - 'document') || jsonb_build_object('document_removed_at', $3::text))
      WHERE id IN (SELECT id FROM events WHERE (data -> 'result') ? 'document' AND occurred_at < $1
                    ORDER BY occurred_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [cutoff, limit, removedAt.toISOString()],
  );
  return rowCount ?? 0;
}

/** What waits for each of these endpoints: how many messages and when the earliest is due (reads the pending index). */
export async function pendingByEndpoint(
  db: Queryable,
  accountId: AccountId,
  endpointIds: readonly WebhookEndpointId[],
): Promise<Map<WebhookEndpointId, { waiting: number; nextAttemptAt: Date | null }>> {
  if (endpointIds.length === 0) return new Map();
  const { rows } = await db.query<{ endpoint_id: WebhookEndpointId; waiting: number; next_attempt_at: Date | null }>(
    `SELECT endpoint_id, count(*)::int AS waiting, min(next_attempt_at) AS next_attempt_at FROM messages
      WHERE endpoint_id = ANY ($2::text[]) AND account_id = $1 AND status = 'pending'
      GROUP BY endpoint_id`,
    [accountId, [...endpointIds]],
  );
  return new Map(rows.map((row) => [row.endpoint_id, { waiting: row.waiting, nextAttemptAt: row.next_attempt_at }]));
}
