import type { BalanceLedger } from '@idv/contracts';
import { daysLeft } from '../domain/balance';
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
