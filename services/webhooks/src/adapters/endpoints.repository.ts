import type { AccountId, WebhookEndpointId, WebhookEventType } from '@idv/contracts';
import type { Cursor, Queryable } from '@idv/kit';
import type { EndpointPatch, EndpointRecord, EndpointStatus, NewEndpoint } from '../domain/endpoint';
import { msInterval } from './sql';

interface EndpointRow {
  id: WebhookEndpointId;
  account_id: AccountId;
  url: string;
  events: WebhookEventType[];
  status: EndpointStatus;
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

function toRecord(row: EndpointRow): EndpointRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    events: row.events,
    status: row.status,
    description: row.description,
    secretEnc: row.secret_enc,
    previousSecretEnc: row.previous_secret_enc,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    consecutiveFailures: row.consecutive_failures,
    circuitOpenUntil: row.circuit_open_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

export async function insertEndpoint(
  db: Queryable,
  accountId: AccountId,
  endpoint: NewEndpoint & { id: WebhookEndpointId; secretEnc: string },
): Promise<EndpointRecord> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO endpoints (id, account_id, url, events, description, secret_enc)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [endpoint.id, accountId, endpoint.url, endpoint.events, endpoint.description, endpoint.secretEnc],
  );
  return toRecord(rows[0]!);
}

export async function findEndpoint(
  db: Queryable,
  accountId: AccountId,
  id: WebhookEndpointId,
  options: { includeDeleted?: boolean } = {},
): Promise<EndpointRecord | null> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT * FROM endpoints WHERE account_id = $1 AND id = $2 ${options.includeDeleted ? '' : 'AND deleted_at IS NULL'}`,
    [accountId, id],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Newest first; one row more than `limit`, so the caller knows whether a next page exists. */
export async function listEndpoints(
  db: Queryable,
  accountId: AccountId,
  page: { limit: number; after: Cursor | null },
): Promise<EndpointRecord[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT * FROM endpoints
     WHERE account_id = $1 AND deleted_at IS NULL
       AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [accountId, page.after?.createdAt ?? null, page.after?.id ?? null, page.limit + 1],
  );
  return rows.map(toRecord);
}

/** Replaces the fields sent; a different url closes the circuit and resets its counter. */
export async function updateEndpoint(
  db: Queryable,
  accountId: AccountId,
  id: WebhookEndpointId,
  patch: EndpointPatch,
): Promise<EndpointRecord | null> {
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
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Soft delete: the delivery log keeps its history. Returns whether there was such an endpoint. */
export async function softDeleteEndpoint(db: Queryable, accountId: AccountId, id: WebhookEndpointId): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE endpoints SET deleted_at = clock_timestamp(), updated_at = date_trunc('milliseconds', clock_timestamp())
     WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [accountId, id],
  );
  return (rowCount ?? 0) > 0;
}

/** The new secret signs from now on; the previous one keeps signing for `graceMs`. */
export async function rotateSecret(
  db: Queryable,
  accountId: AccountId,
  id: WebhookEndpointId,
  rotation: { secretEnc: string; graceMs: number },
): Promise<EndpointRecord | null> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE endpoints SET
       previous_secret_enc = secret_enc,
       previous_secret_expires_at = clock_timestamp() + ${msInterval('$4')},
       secret_enc = $3,
       updated_at = date_trunc('milliseconds', clock_timestamp())
     WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL
     RETURNING *`,
    [accountId, id, rotation.secretEnc, rotation.graceMs],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** A change of the circuit its owner is told of: opened (closed before), or closed by a success (opened before). */
export type CircuitTransition =
  | { kind: 'opened'; accountId: AccountId; endpointId: WebhookEndpointId; url: string; at: Date; nextAttemptAt: Date }
  | { kind: 'closed'; accountId: AccountId; endpointId: WebhookEndpointId; url: string; at: Date };

export interface CircuitFed {
  /** This call opened the circuit (also a re-opening after a failed try at the end of the period). */
  opened: boolean;
  /** The transition the owner is told of, decided on the locked row: at most one caller sees each. */
  transition: CircuitTransition | null;
}

interface FedRow {
  opened: boolean;
  closed: boolean;
  first_open: boolean;
  account_id: AccountId;
  url: string;
  at: Date;
  open_until: Date | null;
}

/**
 * Feeds the endpoint's circuit (the dispatcher's side, by endpoint id: the claimed message named it).
 * A success closes it with the counter reset. A failure counts unless the circuit is already open; the
 * failure that reaches the threshold opens it for `openMs` and resets the counter (after the period,
 * it takes a new run of failures to open it again). One statement on the locked row, so replicas count
 * together. `circuit_opened_at` marks an outage (set by the opening of a closed circuit, cleared by the
 * success that ends it): its two ends are the transitions, whatever re-openings happen in between.
 * Run it in the transaction that writes the transition's event.
 */
export async function feedCircuit(
  db: Queryable,
  endpointId: WebhookEndpointId,
  input: { succeeded: boolean; threshold: number; openMs: number },
): Promise<CircuitFed> {
  if (input.succeeded) {
    const { rows } = await db.query<FedRow>(
      `WITH prev AS (
         SELECT id, (circuit_opened_at IS NOT NULL OR circuit_open_until IS NOT NULL) AS tripped
         FROM endpoints WHERE id = $1 FOR UPDATE
       )
       UPDATE endpoints e SET consecutive_failures = 0, circuit_open_until = NULL, circuit_opened_at = NULL
       FROM prev
       WHERE e.id = prev.id
         AND (e.consecutive_failures <> 0 OR e.circuit_open_until IS NOT NULL OR e.circuit_opened_at IS NOT NULL)
       RETURNING false AS opened, prev.tripped AS closed, false AS first_open, e.account_id, e.url,
                 clock_timestamp() AS at, NULL::timestamptz AS open_until`,
      [endpointId],
    );
    const row = rows[0];
    return {
      opened: false,
      transition: row?.closed ? { kind: 'closed', accountId: row.account_id, endpointId, url: row.url, at: row.at } : null,
    };
  }
  const { rows } = await db.query<FedRow>(
    `WITH prev AS (
       SELECT id, consecutive_failures AS failures, COALESCE(circuit_open_until > clock_timestamp(), false) AS is_open,
              circuit_opened_at IS NULL AS was_closed
       FROM endpoints WHERE id = $1 FOR UPDATE
     ), step AS (
       SELECT prev.*, NOT prev.is_open AND prev.failures + 1 >= $2 AS opening FROM prev
     )
     UPDATE endpoints e SET
       consecutive_failures = CASE WHEN step.is_open THEN e.consecutive_failures
                                   WHEN step.opening THEN 0 ELSE step.failures + 1 END,
       circuit_open_until   = CASE WHEN step.is_open THEN e.circuit_open_until
                                   WHEN step.opening THEN clock_timestamp() + ${msInterval('$3')}
                                   ELSE NULL END,
       circuit_opened_at    = CASE WHEN step.opening AND step.was_closed THEN clock_timestamp() ELSE e.circuit_opened_at END
     FROM step WHERE e.id = step.id
     RETURNING step.opening AS opened, false AS closed, step.opening AND step.was_closed AS first_open, e.account_id, e.url,
               clock_timestamp() AS at, e.circuit_open_until AS open_until`,
    [endpointId, input.threshold, input.openMs],
  );
  const row = rows[0];
  if (!row) return { opened: false, transition: null };
  return {
    opened: row.opened,
    transition:
      row.first_open && row.open_until
        ? { kind: 'opened', accountId: row.account_id, endpointId, url: row.url, at: row.at, nextAttemptAt: row.open_until }
        : null,
  };
}

/** Endpoints that receive events (active, not deleted): the denominator of the open-circuit share. */
export async function countEnabledEndpoints(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM endpoints WHERE deleted_at IS NULL AND status = 'active'`,
  );
  return rows[0]?.n ?? 0;
}

export async function countOpenCircuits(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM endpoints WHERE deleted_at IS NULL AND circuit_open_until > clock_timestamp()`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * Whether any live endpoint of the account subscribes to `type` (the endpoint layer of the fan-out,
 * asked before the event's snapshot is parsed). Endpoints belong to the account, not to a mode: test and
 * live events are asked alike. One index probe (endpoints_account_idx), read at the moment of asking.
 */
export async function accountSubscribes(db: Queryable, accountId: AccountId, type: string): Promise<boolean> {
  const { rows } = await db.query<{ subscribes: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM endpoints
       WHERE account_id = $1 AND deleted_at IS NULL AND status = 'active' AND $2 = ANY (events)
     ) AS subscribes`,
    [accountId, type],
  );
  return rows[0]?.subscribes ?? false;
}
