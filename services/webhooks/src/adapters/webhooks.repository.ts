import type { WebhookEventType } from '@idv/contracts';
import { withTransaction, type Cursor, type Pool, type Queryable } from '@idv/kit';

export const DUE_CHANNEL = 'webhooks_due';

export interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: WebhookEventType[];
  status: 'active' | 'disabled';
  description: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  circuit_open_until: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export type MessageKind = 'event' | 'test' | 'redeliver';

export interface ClaimedMessage {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  kind: MessageKind;
  attempts: number;
  last_wait_ms: number | null;
  event_type: WebhookEventType;
  event_data: Record<string, unknown>;
  /** The frozen configuration opted in to evidence links: they are made at each attempt. */
  evidence_links: boolean;
  url: string;
  endpoint_status: 'active' | 'disabled';
  endpoint_deleted: boolean;
  secret_enc: string;
  previous_secret_enc: string | null;
  circuit_open: boolean;
  consecutive_failures: number;
}

export interface DeliveryRow {
  id: string;
  account_id: string;
  endpoint_id: string;
  message_id: string;
  event_id: string;
  event_type: WebhookEventType;
  attempt: number;
  status: 'succeeded' | 'failed' | 'dead';
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  failure_reason: string | null;
  created_at: Date;
}

const ms = (param: string) => `make_interval(secs => ${param}::float8 / 1000)`;

// ---------------------------------------------------------------- endpoints

export async function insertEndpoint(
  db: Queryable,
  input: { id: string; accountId: string; url: string; events: string[]; description: string; secretEnc: string },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO endpoints (id, account_id, url, events, description, secret_enc)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [input.id, input.accountId, input.url, input.events, input.description, input.secretEnc],
  );
  return rows[0]!;
}

export async function findEndpoint(
  db: Queryable,
  accountId: string,
  id: string,
  options: { includeDeleted?: boolean } = {},
): Promise<EndpointRow | null> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT * FROM endpoints WHERE account_id = $1 AND id = $2 ${options.includeDeleted ? '' : 'AND deleted_at IS NULL'}`,
    [accountId, id],
  );
  return rows[0] ?? null;
}

export async function listEndpoints(
  db: Queryable,
  accountId: string,
  limit: number,
  cursor: Cursor | null,
): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT * FROM endpoints
     WHERE account_id = $1 AND deleted_at IS NULL
       AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [accountId, cursor?.createdAt ?? null, cursor?.id ?? null, limit + 1],
  );
  return rows;
}

export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string;
  status?: 'active' | 'disabled';
}

/** Replaces the fields sent; a different url closes the circuit and resets its counter. */
export async function updateEndpoint(
  db: Queryable,
  accountId: string,
  id: string,
  patch: EndpointPatch,
): Promise<EndpointRow | null> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE endpoints SET
       consecutive_failures = CASE WHEN $3::text IS NOT NULL AND $3 <> url THEN 0 ELSE consecutive_failures END,
       circuit_open_until   = CASE WHEN $3::text IS NOT NULL AND $3 <> url THEN NULL ELSE circuit_open_until END,
       url         = COALESCE($3, url),
       events      = COALESCE($4, events),
       description = COALESCE($5, description),
       status      = COALESCE($6, status),
       updated_at  = date_trunc('milliseconds', clock_timestamp())
     WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL
     RETURNING *`,
    [accountId, id, patch.url ?? null, patch.events ?? null, patch.description ?? null, patch.status ?? null],
  );
  return rows[0] ?? null;
}

/** Soft delete (the delivery log keeps its history); queued messages to it are dropped. */
export async function deleteEndpoint(pool: Pool, accountId: string, id: string): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE endpoints SET deleted_at = clock_timestamp(), updated_at = date_trunc('milliseconds', clock_timestamp())
       WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [accountId, id],
    );
    if (!rowCount) return false;
    await tx.query(
      `UPDATE messages SET status = 'canceled', claim_token = NULL, updated_at = clock_timestamp()
       WHERE endpoint_id = $1 AND status = 'pending'`,
      [id],
    );
    return true;
  });
}

export async function rotateSecret(
  db: Queryable,
  accountId: string,
  id: string,
  secretEnc: string,
  graceMs: number,
): Promise<EndpointRow | null> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE endpoints SET
       previous_secret_enc = secret_enc,
       previous_secret_expires_at = clock_timestamp() + ${ms('$4')},
       secret_enc = $3,
       updated_at = date_trunc('milliseconds', clock_timestamp())
     WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL
     RETURNING *`,
    [accountId, id, secretEnc, graceMs],
  );
  return rows[0] ?? null;
}

// ---------------------------------------------------------------- fan-out

export async function insertEvent(
  db: Queryable,
  input: { id: string; accountId: string; type: string; data: unknown; options: unknown; occurredAt: string },
): Promise<void> {
  await db.query(
    `INSERT INTO events (id, account_id, type, data, options, occurred_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO NOTHING`,
    [input.id, input.accountId, input.type, JSON.stringify(input.data), JSON.stringify(input.options), input.occurredAt],
  );
}

export async function insertAdminMessage(
  db: Queryable,
  input: { accountId: string; endpointId: string; eventId: string; kind: 'test' | 'redeliver' },
): Promise<void> {
  await db.query(`INSERT INTO messages (account_id, endpoint_id, event_id, kind) VALUES ($1, $2, $3, $4)`, [
    input.accountId,
    input.endpointId,
    input.eventId,
    input.kind,
  ]);
}

export async function notifyDue(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_notify('${DUE_CHANNEL}', '')`);
}

// ---------------------------------------------------------------- schedule

/**
 * Claims due messages: locks them with SKIP LOCKED (replicas never take the same row) and pushes
 * next_attempt_at forward by the lease, tagged with this claim's token. If the replica dies, the
 * message comes due again when the lease ends.
 */
export async function claimDue(
  db: Queryable,
  input: { limit: number; excludeEndpoints: string[]; leaseMs: number; token: string },
): Promise<ClaimedMessage[]> {
  const { rows } = await db.query<ClaimedMessage>(
    `WITH due AS (
       SELECT id FROM messages
       WHERE status = 'pending' AND next_attempt_at <= clock_timestamp() AND NOT (endpoint_id = ANY ($2::text[]))
       ORDER BY next_attempt_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE messages m SET next_attempt_at = clock_timestamp() + ${ms('$3')}, claim_token = $4, updated_at = clock_timestamp()
       FROM due WHERE m.id = due.id
       RETURNING m.*
     )
     SELECT c.id, c.account_id, c.endpoint_id, c.event_id, c.kind, c.attempts, c.last_wait_ms,
            ev.type AS event_type, ev.data AS event_data,
            COALESCE((ev.options->>'evidenceLinks')::boolean, false) AS evidence_links,
            e.url, e.status AS endpoint_status, e.deleted_at IS NOT NULL AS endpoint_deleted,
            e.secret_enc,
            CASE WHEN e.previous_secret_expires_at > clock_timestamp() THEN e.previous_secret_enc END AS previous_secret_enc,
            COALESCE(e.circuit_open_until > clock_timestamp(), false) AS circuit_open,
            e.consecutive_failures
     FROM claimed c
     JOIN endpoints e ON e.id = c.endpoint_id
     JOIN events ev ON ev.id = c.event_id`,
    [input.limit, input.excludeEndpoints, input.leaseMs, input.token],
  );
  return rows;
}

/** Gives claims back at once (this replica cannot send them now). */
export async function releaseClaims(db: Queryable, ids: string[], token: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE messages SET next_attempt_at = clock_timestamp(), claim_token = NULL
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

export interface AttemptRecord {
  messageId: string;
  token: string;
  deliveryId: string;
  eventType: string;
  /** The attempt number logged (the n-th real attempt, or the one that was due). */
  attempt: number;
  /** New value of messages.attempts. */
  attemptsUsed: number;
  messageStatus: 'pending' | 'succeeded' | 'failed' | 'dead';
  waitMs: number | null;
  deliveryStatus: 'succeeded' | 'failed' | 'dead';
  httpStatus: number | null;
  durationMs: number | null;
  error: string | null;
  failureReason: string | null;
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
         next_attempt_at = CASE WHEN $5::int IS NULL THEN next_attempt_at ELSE clock_timestamp() + ${ms('$5')} END,
         claim_token = NULL, updated_at = clock_timestamp()
       WHERE id = $1 AND claim_token = $2
       RETURNING id, account_id, endpoint_id, event_id
     )
     INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status,
                             http_status, duration_ms, error, failure_reason)
     SELECT $6, m.account_id, m.endpoint_id, m.id, m.event_id, $7, $8, $9, $10, $11, $12, $13 FROM m
     RETURNING id`,
    [
      r.messageId,
      r.token,
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
    ],
  );
  return rows.length > 0;
}

export async function cancelMessage(db: Queryable, id: string, token: string): Promise<void> {
  await db.query(`UPDATE messages SET status = 'canceled', claim_token = NULL WHERE id = $1 AND claim_token = $2`, [id, token]);
}

/**
 * Feeds the endpoint's circuit. A success closes it with the counter reset. A failure counts unless
 * the circuit is already open; the failure that reaches the threshold opens it for `openMs` and
 * resets the counter (after the period, it takes a new run of failures to open it again).
 * Returns whether this call opened it.
 */
export async function feedCircuit(
  db: Queryable,
  input: { endpointId: string; succeeded: boolean; threshold: number; openMs: number },
): Promise<boolean> {
  if (input.succeeded) {
    await db.query(
      `UPDATE endpoints SET consecutive_failures = 0, circuit_open_until = NULL
       WHERE id = $1 AND (consecutive_failures <> 0 OR circuit_open_until IS NOT NULL)`,
      [input.endpointId],
    );
    return false;
  }
  const { rows } = await db.query<{ opened: boolean }>(
    `WITH prev AS (
       SELECT id, consecutive_failures AS failures, COALESCE(circuit_open_until > clock_timestamp(), false) AS is_open
       FROM endpoints WHERE id = $1 FOR UPDATE
     )
     UPDATE endpoints e SET
       consecutive_failures = CASE WHEN prev.is_open THEN e.consecutive_failures
                                   WHEN prev.failures + 1 >= $2 THEN 0 ELSE prev.failures + 1 END,
       circuit_open_until   = CASE WHEN prev.is_open THEN e.circuit_open_until
                                   WHEN prev.failures + 1 >= $2 THEN clock_timestamp() + ${ms('$3')}
                                   ELSE NULL END
     FROM prev WHERE e.id = prev.id
     RETURNING (NOT prev.is_open AND prev.failures + 1 >= $2) AS opened`,
    [input.endpointId, input.threshold, input.openMs],
  );
  return rows[0]?.opened ?? false;
}

export async function countWaiting(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE status = 'pending'`);
  return rows[0]?.n ?? 0;
}

export async function countOpenCircuits(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM endpoints WHERE deleted_at IS NULL AND circuit_open_until > clock_timestamp()`,
  );
  return rows[0]?.n ?? 0;
}

// ---------------------------------------------------------------- delivery log

export async function listDeliveries(
  db: Queryable,
  accountId: string,
  input: { endpointId?: string; limit: number; cursor: Cursor | null },
): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT * FROM deliveries
     WHERE account_id = $1 AND ($2::text IS NULL OR endpoint_id = $2)
       AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::text))
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [accountId, input.endpointId ?? null, input.cursor?.createdAt ?? null, input.cursor?.id ?? null, input.limit + 1],
  );
  return rows;
}

/** By primary key, ownership checked on the row (the planner must never trade the key for the account index). */
export async function findDelivery(db: Queryable, accountId: string, id: string): Promise<DeliveryRow | null> {
  const { rows } = await db.query<DeliveryRow>(`SELECT * FROM deliveries WHERE id = $1`, [id]);
  const row = rows[0];
  return row && row.account_id === accountId ? row : null;
}

// ---------------------------------------------------------------- admin quota

/**
 * Sliding window of `limit` per `windowMs` per account, shared by test and redeliver. Every attempt
 * is recorded, rejected ones included (spec "Limits"). Serialised per account by an advisory lock.
 */
export async function takeAdminQuota(
  pool: Pool,
  accountId: string,
  limit: number,
  windowMs: number,
): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  return withTransaction(pool, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 4242))`, [accountId]);
    await tx.query(`DELETE FROM admin_requests WHERE account_id = $1 AND at <= clock_timestamp() - ${ms('$2')}`, [
      accountId,
      windowMs,
    ]);
    await tx.query(`INSERT INTO admin_requests (account_id) VALUES ($1)`, [accountId]);
    const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin_requests WHERE account_id = $1`, [
      accountId,
    ]);
    const n = rows[0]?.n ?? 0;
    if (n <= limit) return { allowed: true, retryAfterSeconds: 0 };
    // The next attempt passes once enough entries left the window for it to be the limit-th.
    const { rows: oldest } = await tx.query<{ wait_ms: number }>(
      `SELECT GREATEST(0, extract(epoch FROM (at + ${ms('$2')} - clock_timestamp())) * 1000)::float8 AS wait_ms
       FROM admin_requests WHERE account_id = $1 ORDER BY at OFFSET $3 LIMIT 1`,
      [accountId, windowMs, n - limit],
    );
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest[0]?.wait_ms ?? windowMs) / 1000)) };
  });
}

export interface SuccessRecord {
  messageId: string;
  token: string;
  deliveryId: string;
  eventType: string;
  attempt: number;
  httpStatus: number;
  durationMs: number;
}

/** Many successful automatic attempts in one statement (the hot path of a healthy system). */
export async function recordSuccesses(db: Queryable, records: SuccessRecord[]): Promise<number> {
  const { rowCount } = await db.query(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[])
         AS t (message_id, token, delivery_id, event_type, attempt, http_status, duration_ms)
     ), m AS (
       UPDATE messages SET status = 'succeeded', attempts = input.attempt, claim_token = NULL, updated_at = clock_timestamp()
       FROM input WHERE messages.id = input.message_id AND messages.claim_token = input.token
       RETURNING messages.id, messages.account_id, messages.endpoint_id, messages.event_id
     )
     INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status, http_status, duration_ms)
     SELECT input.delivery_id, m.account_id, m.endpoint_id, m.id, m.event_id, input.event_type, input.attempt, 'succeeded',
            input.http_status, input.duration_ms
     FROM m JOIN input ON input.message_id = m.id`,
    [
      records.map((r) => r.messageId),
      records.map((r) => r.token),
      records.map((r) => r.deliveryId),
      records.map((r) => r.eventType),
      records.map((r) => r.attempt),
      records.map((r) => r.httpStatus),
      records.map((r) => r.durationMs),
    ],
  );
  return rowCount ?? 0;
}

/**
 * The whole fan-out of one event in one statement (atomic, one round trip): the event row and one
 * automatic message per active endpoint of the account subscribed to the type, then a NOTIFY for the
 * dispatchers. A repeated event inserts nothing. Returns how many messages were new.
 */
export async function fanOut(
  db: Queryable,
  input: { id: string; accountId: string; type: string; data: unknown; options: unknown; occurredAt: string },
): Promise<number> {
  const { rows } = await db.query<{ queued: number }>(
    `WITH eps AS (
       SELECT id FROM endpoints
       WHERE account_id = $2 AND status = 'active' AND deleted_at IS NULL AND $3 = ANY (events)
     ), ev AS (
       INSERT INTO events (id, account_id, type, data, options, occurred_at)
       SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM eps)
       ON CONFLICT (id) DO NOTHING
     ), ins AS (
       INSERT INTO messages (account_id, endpoint_id, event_id, kind)
       SELECT $2, eps.id, $1, 'event' FROM eps
       ON CONFLICT (event_id, endpoint_id) WHERE kind = 'event' DO NOTHING
       RETURNING 1
     ), queued AS (SELECT count(*)::int AS n FROM ins)
     SELECT n AS queued, CASE WHEN n > 0 THEN pg_notify('${DUE_CHANNEL}', '') END AS notified FROM queued`,
    [input.id, input.accountId, input.type, JSON.stringify(input.data), JSON.stringify(input.options), input.occurredAt],
  );
  return rows[0]?.queued ?? 0;
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
