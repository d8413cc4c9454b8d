import type { DomainEvent } from '@idv/contracts';
import { withTransaction } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import { finishNotice, lockPendingNotice, ownersOf, receiveNotice, recordNoticeMail } from '../adapters/owner-notices.repository';
import { NOTICE_AUDIT_ACTIONS, noticeLink, noticeTarget, readNotice } from '../domain/owner-notices';
import type { DashboardPorts } from './ports';

export type NoticeOutcome =
  | { kind: 'sent'; owners: number }
  /** A copy of an event already handled (the broker delivers at least once). */
  | { kind: 'duplicate' }
  | { kind: 'not_a_notice' }
  | { kind: 'malformed'; issues: string[] };

/**
 * Mails every owner of the account the notice an event asks for, once per event: the notice is claimed by
 * its event id and locked while its mails go out (a second copy waits, then finds it done); each owner's
 * mail is recorded as SMTP takes it, so after a failure (thrown once the others are recorded) the retry
 * mails only the owners not reached yet. Once all are, the audit log says the service told the owners.
 * Locale: Spanish (Argentina); the dashboard keeps no language per person yet.
 */
export async function notifyOwners(
  ports: Pick<DashboardPorts, 'pool' | 'mailer' | 'baseUrl' | 'logger'>,
  event: DomainEvent,
): Promise<NoticeOutcome> {
  const read = readNotice(event);
  if (read.kind !== 'notice') return read;
  const { notice } = read;
  await receiveNotice(ports.pool, { eventId: event.id, accountId: notice.accountId, type: event.type });
  const outcome = await withTransaction(ports.pool, async (tx) => {
    const pending = await lockPendingNotice(tx, event.id);
    if (!pending) return { kind: 'duplicate' as const };
    const owners = await ownersOf(tx, notice.accountId);
    const link = noticeLink(notice, ports.baseUrl);
    let failure: unknown = null;
    for (const owner of owners) {
      if (pending.mailed.has(owner.userId)) continue;
      try {
        await ports.mailer.sendOwnerNotice(owner.email, owner.name, notice, link, 'es');
        await recordNoticeMail(tx, event.id, owner.userId);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) return { kind: 'failed' as const, failure };
    await finishNotice(tx, event.id);
    if (owners.length > 0) {
      await appendAudit(tx, {
        accountId: notice.accountId,
        actorId: null,
        action: NOTICE_AUDIT_ACTIONS[notice.kind],
        target: noticeTarget(notice),
        address: null,
      });
    }
    return { kind: 'sent' as const, owners: owners.length };
  });
  // Thrown after the commit that kept the owners already mailed: the consumer retries the others.
  if (outcome.kind === 'failed') {
    throw outcome.failure instanceof Error ? outcome.failure : new Error('an owner notice could not be mailed');
  }
  return outcome;
}
