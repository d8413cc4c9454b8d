import type { AccountId } from '@idv/contracts';
import type { Pool } from '@idv/kit';
import type { Response } from 'express';
import { streamUsageCsv } from '../use-cases/usage';

/**
 * The month's usage CSV with its headers, as the public export sends it: the dashboard's download goes
 * through this same function (an internal route), so both are the same bytes and the same headers.
 */
export async function sendUsageCsv(pool: Pool, accountId: AccountId, month: string, res: Response): Promise<void> {
  await streamUsageCsv(pool, accountId, month, res, () => {
    res.status(200);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="sessions-${month}.csv"`);
    res.setHeader('cache-control', 'no-store');
  });
  res.end();
}
