import { EVIDENCE_ARTIFACTS, type AccountId, type UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';
import { AUDIT_GROUP_PREFIXES, type AuditFilter } from '../domain/audit';

export interface AuditEntry {
  accountId: AccountId | null;
  actorId: UserId | null;
  action: string;
  target?: string;
  address: string | null;
}

/** Appends to the audit log (the table refuses updates and deletes). */
export async function appendAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query('INSERT INTO audit_log (account_id, actor_id, action, target, address) VALUES ($1, $2, $3, $4, $5)', [
    entry.accountId,
    entry.actorId,
    entry.action,
    entry.target ?? null,
    entry.address,
  ]);
}

/** One entry as the account's audit page shows it: who acted as they are known now (an operator as the service's, without an address). */
export interface AuditRecord {
  id: number;
  at: Date;
  action: string;
  target: string | null;
  address: string | null;
  actor:
    | { kind: 'member'; id: UserId; name: string; email: string }
    | { kind: 'operator' }
    /** The service itself (an owners' notice it sent): no person acted. */
    | { kind: 'service' }
    | { kind: 'none' };
}

interface AuditRow {
  id: string;
  at: Date;
  action: string;
  target: string | null;
  address: string | null;
  actor_id: UserId | null;
  user_name: string | null;
  user_email: string | null;
  operator: boolean;
}

/**
 * An account's entries, newest first, that `filter` keeps, at most `limit`: the account's own, and its
 * current members' security events logged without an account (a failed sign-in names none). Each half
 * reads its own index (by account, by actor), each stops at `limit`.
 */
export async function listAuditEntries(
  db: Queryable,
  accountId: AccountId,
  filter: AuditFilter,
  limit: number,
): Promise<AuditRecord[]> {
  const prefixes = filter.group === null ? null : AUDIT_GROUP_PREFIXES[filter.group].map((prefix) => `${prefix}%`);
  const kept = `($2::text[] IS NULL OR action LIKE ANY ($2))
       AND ($3::text IS NULL OR ($3 = 'operator' AND actor_id IN (SELECT id FROM operators)) OR actor_id = $3)
       AND ($4::date IS NULL OR at >= $4::date::timestamp AT TIME ZONE 'America/Argentina/Buenos_Aires')
       AND ($5::date IS NULL OR at < ($5::date + 1)::timestamp AT TIME ZONE 'America/Argentina/Buenos_Aires')
       AND ($6::bigint IS NULL OR id < $6)`;
  const { rows } = await db.query<AuditRow>(
    `SELECT a.id, a.at, a.action, a.target, a.address, a.actor_id, u.name AS user_name, u.email AS user_email,
            EXISTS (SELECT 1 FROM operators o WHERE o.id = a.actor_id) AS operator
       FROM ((SELECT * FROM audit_log WHERE account_id = $1 AND ${kept} ORDER BY id DESC LIMIT $7)
             UNION ALL
             (SELECT * FROM audit_log
               WHERE account_id IS NULL AND action LIKE 'user.%'
                 AND actor_id IN (SELECT user_id FROM memberships WHERE account_id = $1) AND ${kept}
               ORDER BY id DESC LIMIT $7)) a
       LEFT JOIN users u ON u.id = a.actor_id
      ORDER BY a.id DESC LIMIT $7`,
    [accountId, prefixes, filter.actor, filter.from, filter.to, filter.before, limit],
  );
  return rows.map(toAuditRecord);
}

function toAuditRecord(row: AuditRow): AuditRecord {
  const actor: AuditRecord['actor'] = row.operator
    ? { kind: 'operator' }
    : row.actor_id === null && row.action.startsWith('notification.')
      ? { kind: 'service' }
      : row.actor_id !== null && row.user_name !== null && row.user_email !== null
        ? { kind: 'member', id: row.actor_id, name: row.user_name, email: row.user_email }
        : { kind: 'none' };
  // An operator's address is the service's network, not the account's to know.
  const address = actor.kind === 'operator' ? null : row.address;
  return { id: Number(row.id), at: row.at, action: row.action, target: row.target, address, actor };
}

/** The entries that say someone saw a session's personal data (its person's access trail). */
export const PERSONAL_DATA_ACTIONS = [
  'session.data_shown',
  'session.images_shown',
  'session.image_opened',
  'session.evidence_downloaded',
] as const;

/** The targets an entry about a session names: the session, or one of its images (`{session}/{artifact}`). */
const sessionTargets = (sessionId: string) => [sessionId, ...EVIDENCE_ARTIFACTS.map((artifact) => `${sessionId}/${artifact}`)];

/** Who opened a session's personal data or images, newest first (the index by account and target, one probe per target). */
export async function listAccessTrail(
  db: Queryable,
  accountId: AccountId,
  sessionId: string,
  limit = 1000,
): Promise<AuditRecord[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT a.id, a.at, a.action, a.target, a.address, a.actor_id, u.name AS user_name, u.email AS user_email,
            EXISTS (SELECT 1 FROM operators o WHERE o.id = a.actor_id) AS operator
       FROM audit_log a LEFT JOIN users u ON u.id = a.actor_id
      WHERE a.account_id = $1 AND a.target = ANY ($2::text[]) AND a.action = ANY ($3)
      ORDER BY a.id DESC LIMIT $4`,
    [accountId, sessionTargets(sessionId), PERSONAL_DATA_ACTIONS, limit],
  );
  return rows.map(toAuditRecord);
}
