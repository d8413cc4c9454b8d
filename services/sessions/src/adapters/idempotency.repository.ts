import type { Queryable } from '@idv/kit';

// The lock, the look-up and the record's insert are in the create's statement (session-create.repository.ts).

export async function deleteOlderThan(db: Queryable, hours: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM idempotency_records WHERE created_at < now() - make_interval(hours => $1)', [
    hours,
  ]);
  return rowCount ?? 0;
}
