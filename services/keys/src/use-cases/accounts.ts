import { domainEvents, newId, type AccountId, type AccountStatus } from '@idv/contracts';
import { enqueueEvent, notFound, withTransaction, type Pool } from '@idv/kit';
import * as accounts from '../adapters/accounts.repository';
import type { AccountRecord } from '../domain/accounts';

/** A new account waits, `pending`, until an operator approves it. */
export function createAccount(pool: Pool, input: { name: string; email: string }): Promise<AccountRecord> {
  return accounts.insertAccount(pool, newId('account'), input);
}

/** The operator console's list: the oldest first, so the longest waiting is on top. */
export async function listAccounts(pool: Pool, status: AccountStatus | undefined, limit: number) {
  const rows = await accounts.listAccounts(pool, status, limit + 1);
  return { accounts: rows.slice(0, limit), hasMore: rows.length > limit };
}

export async function getAccount(pool: Pool, accountId: AccountId): Promise<AccountRecord> {
  const account = await accounts.findAccount(pool, accountId);
  if (!account) throw notFound('account');
  return account;
}

/**
 * The status change and its `account.status_changed` event commit together: the gateway's key cache
 * forgets the account only for a change that happened.
 */
function changeStatus(pool: Pool, accountId: AccountId, status: AccountStatus): Promise<AccountRecord> {
  return withTransaction(pool, async (tx) => {
    const updated = await accounts.setAccountStatus(tx, accountId, status);
    if (!updated) throw notFound('account');
    await enqueueEvent(tx, domainEvents.accountStatusChanged({ account_id: updated.id, status }));
    return updated;
  });
}

export const approveAccount = (pool: Pool, accountId: AccountId) => changeStatus(pool, accountId, 'active');
export const suspendAccount = (pool: Pool, accountId: AccountId) => changeStatus(pool, accountId, 'suspended');
