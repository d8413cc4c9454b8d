import { createPool, withTransaction, type Pool } from '@idv/kit';
import { newId, type AccountId } from '@idv/contracts';
import { testEnv } from '@idv/testkit';
import { takeAdminQuota as takeInTransaction } from '../src/adapters/quota.repository';

// Against the real PostgreSQL of the test stack (schema webhooks), with a 1.5 s window instead of 60 s.
let pool: Pool;
beforeAll(() => {
  pool = createPool({ url: testEnv().databaseUrl, schema: 'webhooks', max: 2 });
});
afterAll(async () => {
  await pool.end();
});

const WINDOW = 1500;

/** The repository needs its caller's transaction (the use case holds one per call, as here). */
const takeAdminQuota = (db: Pool, accountId: AccountId, limit: number, windowMs: number) =>
  withTransaction(db, (tx) => takeInTransaction(tx, accountId, limit, windowMs));

describe('admin quota (sliding window in PostgreSQL)', () => {
  it('when the limit is reached, then further attempts are rejected and the rejected ones keep the window full', async () => {
    const account = newId('account');
    const results: boolean[] = [];
    for (let i = 0; i < 10; i++) results.push((await takeAdminQuota(pool, account, 10, WINDOW)).allowed);
    expect(results).toEqual(Array(10).fill(true));

    // Rejected attempts, spread over the second half of the window.
    await new Promise((resolve) => setTimeout(resolve, WINDOW / 2));
    const rejected = [];
    for (let i = 0; i < 10; i++) rejected.push(await takeAdminQuota(pool, account, 10, WINDOW));
    expect(rejected.every((r) => !r.allowed && r.retryAfterSeconds >= 1)).toBe(true);

    // The 10 accepted ones have left the window, but the 10 rejected ones are still in it.
    await new Promise((resolve) => setTimeout(resolve, WINDOW / 2 + 200));
    expect((await takeAdminQuota(pool, account, 10, WINDOW)).allowed).toBe(false);

    // Once those leave too, attempts pass again.
    await new Promise((resolve) => setTimeout(resolve, WINDOW + 100));
    expect((await takeAdminQuota(pool, account, 10, WINDOW)).allowed).toBe(true);
  });

  it('when two accounts use the quota, then they do not share it', async () => {
    const a = newId('account');
    const b = newId('account');
    for (let i = 0; i < 11; i++) await takeAdminQuota(pool, a, 10, 60_000);
    expect((await takeAdminQuota(pool, a, 10, 60_000)).allowed).toBe(false);
    expect((await takeAdminQuota(pool, b, 10, 60_000)).allowed).toBe(true);
  });

  it('when concurrent attempts race, then exactly the limit passes', async () => {
    const account = newId('account');
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => takeAdminQuota(pool, account, 10, 60_000)));
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(10);
  });
});
