import type { BalanceLedger } from '@idv/contracts';
import { appendAudit } from '../adapters/audit.repository';
import { daysLeft, parseThreshold } from '../domain/balance';
import { can } from '../domain/roles';
import type { DashboardPorts } from './ports';
import type { Viewer } from './sign-in';

/** Ledger entries a page shows. */
export const LEDGER_PAGE_SIZE = 50;

export type BalancePage = { kind: 'forbidden' } | { kind: 'balance'; ledger: BalanceLedger; daysLeft: number | null };

/** The account's tokens: the balance, how many days it lasts at the last week's pace, and a page of the ledger. */
export async function balancePage(ports: DashboardPorts, viewer: Viewer, before: number | null): Promise<BalancePage> {
  if (!can(viewer.role, 'billing.read')) return { kind: 'forbidden' };
  const query: Record<string, string> = { limit: String(LEDGER_PAGE_SIZE) };
  if (before !== null) query.before = String(before);
  const ledger = await ports.platform.call('getBalanceLedger', { id: viewer.accountId }, undefined, query);
  return { kind: 'balance', ledger, daysLeft: daysLeft(ledger.balance, ledger.debited_last_7_days) };
}

export type ThresholdResult = { kind: 'forbidden' } | { kind: 'invalid' } | { kind: 'saved'; tokens: number | null };

/**
 * The owner's low-balance threshold (empty: back to the default, 3 days of use), kept by the sessions
 * service, which decides when a debit crosses it. Owners only (an account setting); audited.
 */
export async function setLowBalanceThreshold(
  ports: DashboardPorts,
  viewer: Viewer,
  value: unknown,
  address: string,
): Promise<ThresholdResult> {
  if (!can(viewer.role, 'account.settings')) return { kind: 'forbidden' };
  const parsed = parseThreshold(value);
  if (parsed === 'invalid') return { kind: 'invalid' };
  await ports.platform.call('setBalanceThreshold', { id: viewer.accountId }, { tokens: parsed.tokens });
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'balance.threshold_set',
    target: parsed.tokens === null ? 'default' : String(parsed.tokens),
    address,
  });
  return { kind: 'saved', tokens: parsed.tokens };
}
