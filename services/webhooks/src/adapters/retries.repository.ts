import type { AccountId, EventId, WebhookEndpointId, WebhookRetryId } from '@idv/contracts';
import { currentTraceHeaders, type Queryable } from '@idv/kit';
import type { EndpointStatus } from '../domain/endpoint';
import type { MessageId } from '../domain/message';
import type { RetryCandidate, RetryJobRecord } from '../domain/retry';

/**
 * Retries of an endpoint's failed deliveries (migration 1796441000000): the job row and its `retry`
 * messages. Starting one runs inside the caller's transaction, with the endpoint's row locked.
 */

/** The endpoint's row, locked until the transaction ends (serialises the starts of one endpoint); null if none. */
export async function lockEndpoint(
  tx: Queryable,
  accountId: AccountId,
  endpointId: WebhookEndpointId,
): Promise<{ status: EndpointStatus } | null> {
  const { rows } = await tx.query<{ status: EndpointStatus }>(
    `SELECT status FROM endpoints WHERE id = $2 AND account_id = $1 AND deleted_at IS NULL FOR UPDATE`,
    [accountId, endpointId],
  );
  return rows[0] ?? null;
}

/** Whether a retry of the endpoint still has messages waiting (reads the endpoint's pending index). */
export async function hasRunningRetry(db: Queryable, accountId: AccountId, endpointId: WebhookEndpointId): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM messages WHERE endpoint_id = $2 AND account_id = $1 AND status = 'pending' AND kind = 'retry' LIMIT 1`,
    [accountId, endpointId],
  );
  return rows.length > 0;
}

/**
 * The events whose latest attempt to the endpoint in [from, to) failed, that have not succeeded since,
 * and for which no redelivery or retry waits, oldest failure first. Reads the endpoint's covering index for
 * the range (no table row) and the event index for "since": on 424,000 attempts (31 days of the bench's
 * 5,000,000) about 1.8 s, on a day's 14,000 some 60 ms.
 */
export async function retryCandidates(
  db: Queryable,
  accountId: AccountId,
  endpointId: WebhookEndpointId,
  range: { from: Date; to: Date },
): Promise<RetryCandidate[]> {
  const { rows } = await db.query<{ event_id: EventId; failed_at: Date }>(
    `WITH latest AS (
       SELECT DISTINCT ON (event_id) event_id, status, created_at
         FROM deliveries
        WHERE account_id = $1 AND endpoint_id = $2 AND created_at >= $3 AND created_at < $4
        ORDER BY event_id, created_at DESC, id DESC
     )
     SELECT l.event_id, l.created_at AS failed_at FROM latest l
      WHERE l.status IN ('failed', 'dead')
        AND NOT EXISTS (SELECT 1 FROM deliveries d
                         WHERE d.event_id = l.event_id AND d.endpoint_id = $2 AND d.status = 'succeeded' AND d.created_at > l.created_at)
        AND NOT EXISTS (SELECT 1 FROM messages m
                         WHERE m.event_id = l.event_id AND m.endpoint_id = $2 AND m.status = 'pending' AND m.kind <> 'event')
      ORDER BY l.created_at, l.event_id`,
    [accountId, endpointId, range.from, range.to],
  );
  return rows.map((row) => ({ eventId: row.event_id, failedAt: row.failed_at }));
}

/**
 * The automatic messages of these events that wait for their next scheduled attempt (not claimed by a
 * dispatcher) are canceled: the retry sends them now instead. A claimed one is left to its attempt.
 */
export async function takeOverScheduled(
  tx: Queryable,
  accountId: AccountId,
  endpointId: WebhookEndpointId,
  eventIds: readonly EventId[],
): Promise<number> {
  if (eventIds.length === 0) return 0;
  const { rowCount } = await tx.query(
    `UPDATE messages SET status = 'canceled', updated_at = clock_timestamp()
      WHERE endpoint_id = $2 AND account_id = $1 AND status = 'pending' AND kind = 'event' AND claim_token IS NULL
        AND event_id = ANY ($3::text[])`,
    [accountId, endpointId, [...eventIds]],
  );
  return rowCount ?? 0;
}

export async function insertRetryJob(
  tx: Queryable,
  accountId: AccountId,
  job: { id: WebhookRetryId; endpointId: WebhookEndpointId; from: Date; to: Date; intervalMs: number },
): Promise<void> {
  await tx.query(
    `INSERT INTO retry_jobs (id, account_id, endpoint_id, range_from, range_to, interval_ms) VALUES ($1, $2, $3, $4, $5, $6)`,
    [job.id, accountId, job.endpointId, job.from, job.to, job.intervalMs],
  );
}

/**
 * One `retry` message per candidate, due `intervalMs` apart from now in the candidates' order, leaving out
 * `test` events, and (checked again, after the take-over) an event that a message still waits for (an
 * automatic attempt under way) or that succeeded since its failure. The unique (job, event) index makes each event once. Sets the
 * job's total and returns it.
 */
export async function insertRetryMessages(
  tx: Queryable,
  accountId: AccountId,
  job: { id: WebhookRetryId; endpointId: WebhookEndpointId; intervalMs: number },
  candidates: readonly RetryCandidate[],
): Promise<number> {
  // The trace of whoever asked for the retry: its attempts are spans of it.
  const trace = currentTraceHeaders();
  const { rows } = await tx.query<{ total: number }>(
    `WITH input AS (
       SELECT c.event_id, c.failed_at, c.n FROM unnest($4::text[], $5::timestamptz[]) WITH ORDINALITY AS c (event_id, failed_at, n)
     ), kept AS (
       SELECT i.event_id, row_number() OVER (ORDER BY i.n) - 1 AS slot
         FROM input i JOIN events ev ON ev.id = i.event_id AND ev.type <> 'test'
        WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.event_id = i.event_id AND m.endpoint_id = $3 AND m.status = 'pending')
          AND NOT EXISTS (SELECT 1 FROM deliveries d
                           WHERE d.event_id = i.event_id AND d.endpoint_id = $3 AND d.status = 'succeeded' AND d.created_at > i.failed_at)
     ), ins AS (
       INSERT INTO messages (account_id, endpoint_id, event_id, kind, retry_job_id, next_attempt_at, traceparent, tracestate)
       SELECT $2, $3, kept.event_id, 'retry', $1, clock_timestamp() + make_interval(secs => kept.slot * $6::float8 / 1000),
              $7::text, $8::text
         FROM kept
       ON CONFLICT DO NOTHING
       RETURNING 1
     )
     UPDATE retry_jobs SET total = (SELECT count(*) FROM ins) WHERE id = $1 RETURNING total`,
    [
      job.id,
      accountId,
      job.endpointId,
      candidates.map((c) => c.eventId),
      candidates.map((c) => c.failedAt),
      job.intervalMs,
      trace?.traceparent ?? null,
      trace?.tracestate ?? null,
    ],
  );
  return rows[0]?.total ?? 0;
}

interface JobRow {
  id: WebhookRetryId;
  account_id: AccountId;
  endpoint_id: WebhookEndpointId;
  range_from: Date;
  range_to: Date;
  total: number;
  interval_ms: number;
  created_at: Date;
  pending: number;
  sent: number;
  failed: number;
  canceled: number;
}

const JOB_WITH_PROGRESS = `
  SELECT j.id, j.account_id, j.endpoint_id, j.range_from, j.range_to, j.total, j.interval_ms, j.created_at,
         p.pending, p.sent, p.failed, p.canceled
    FROM retry_jobs j
    CROSS JOIN LATERAL (
      SELECT count(*) FILTER (WHERE m.status = 'pending')::int AS pending,
             count(*) FILTER (WHERE m.status IN ('succeeded', 'failed', 'dead'))::int AS sent,
             count(*) FILTER (WHERE m.status IN ('failed', 'dead'))::int AS failed,
             count(*) FILTER (WHERE m.status = 'canceled')::int AS canceled
        FROM messages m WHERE m.retry_job_id = j.id) p`;

function toJob(row: JobRow): RetryJobRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    from: row.range_from,
    to: row.range_to,
    total: row.total,
    intervalMs: row.interval_ms,
    createdAt: row.created_at,
    progress: { pending: row.pending, sent: row.sent, failed: row.failed, canceled: row.canceled },
  };
}

/** The endpoint's latest retries, newest first, each with its progress. */
export async function listRetryJobs(
  db: Queryable,
  accountId: AccountId,
  endpointId: WebhookEndpointId,
  limit: number,
): Promise<RetryJobRecord[]> {
  const { rows } = await db.query<JobRow>(
    `${JOB_WITH_PROGRESS} WHERE j.account_id = $1 AND j.endpoint_id = $2 ORDER BY j.created_at DESC, j.id DESC LIMIT $3`,
    [accountId, endpointId, limit],
  );
  return rows.map(toJob);
}

export async function findRetryJob(db: Queryable, accountId: AccountId, id: WebhookRetryId): Promise<RetryJobRecord | null> {
  const { rows } = await db.query<JobRow>(`${JOB_WITH_PROGRESS} WHERE j.id = $2 AND j.account_id = $1`, [accountId, id]);
  const row = rows[0];
  return row ? toJob(row) : null;
}

/**
 * A retry's message came due while its endpoint's circuit is open: nothing is sent or logged and no attempt is
 * used; it and the job's other waiting messages (those no dispatcher holds) are due again from the end of the
 * open period on, at the job's pace, in the order they were due. Repeated by each message claimed meanwhile,
 * it gives the same schedule. Only while this claim holds the message.
 */
export async function postponeRetryUntilCircuitEnds(db: Queryable, messageId: MessageId, token: string): Promise<void> {
  await db.query(
    `WITH me AS (
       SELECT m.id, m.retry_job_id, j.interval_ms, GREATEST(e.circuit_open_until, clock_timestamp()) AS resume_at
         FROM messages m JOIN retry_jobs j ON j.id = m.retry_job_id JOIN endpoints e ON e.id = m.endpoint_id
        WHERE m.id = $1 AND m.claim_token = $2
     ), waiting AS (
       SELECT m.id, row_number() OVER (ORDER BY m.next_attempt_at, m.id) - 1 AS slot
         FROM messages m JOIN me ON m.retry_job_id = me.retry_job_id
        WHERE m.status = 'pending' AND (m.claim_token IS NULL OR m.id = me.id)
     )
     UPDATE messages m
        SET next_attempt_at = me.resume_at + make_interval(secs => waiting.slot * me.interval_ms::float8 / 1000),
            claim_token = CASE WHEN m.id = me.id THEN NULL ELSE m.claim_token END,
            unfinished_claims = CASE WHEN m.id = me.id THEN greatest(m.unfinished_claims - 1, 0) ELSE m.unfinished_claims END,
            updated_at = clock_timestamp()
       FROM waiting, me
      WHERE m.id = waiting.id`,
    [messageId, token],
  );
}
