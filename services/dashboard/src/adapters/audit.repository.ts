import type { AccountId, UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

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
