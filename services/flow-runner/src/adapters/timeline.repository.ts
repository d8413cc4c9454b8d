import { toTimestamp, type AccountId, type SessionId, type TimelineEntry } from '@idv/contracts';
import type { Pool, Queryable } from '@idv/kit';
import type { TimelinePage, TimelinePort } from '../domain/ports';
import type { TimelineDetail, TimelineDraft } from '../domain/timeline';

/**
 * The timeline's table (`timeline_entries`, append-only: nothing here updates or deletes a row). Entries
 * are written with the change they report: `loggedChange` wraps a change's statement so that its entries
 * go in the same statement (a flow's versioned write, its creation, a hand-over, a registry retry), and
 * `appendTimeline` adds them inside a caller's transaction. Only the rows the change touched get theirs:
 * a change that lost its race writes none.
 */

/** Drafted entries of one session. */
export interface SessionTimeline {
  sessionId: SessionId;
  drafts: readonly TimelineDraft[];
}

/** The entries as five parallel arrays, in order: session ids, kinds, step ids, attempts, details (JSON). */
function arraysOf(sessions: readonly SessionTimeline[]): [string[], string[], (string | null)[], (number | null)[], string[]] {
  const arrays: ReturnType<typeof arraysOf> = [[], [], [], [], []];
  for (const { sessionId, drafts } of sessions) {
    for (const draft of drafts) {
      arrays[0].push(sessionId);
      arrays[1].push(draft.kind);
      arrays[2].push(draft.stepId ?? null);
      arrays[3].push(draft.attempt ?? null);
      arrays[4].push(JSON.stringify(draft.detail ?? {}));
    }
  }
  return arrays;
}

/**
 * The entries of the sessions `source` names (rows with `session_id` and `account_id`), from the arrays
 * at `$first`…`$first+4`, in the order drafted. A step started twice (back to a choice's list) keeps its
 * first entry (the unique index on started steps).
 */
const insertFrom = (source: string, first: number) =>
  `INSERT INTO timeline_entries (session_id, account_id, kind, step_id, attempt, detail)
   SELECT e.session_id, s.account_id, e.kind, e.step_id, e.attempt, e.detail::jsonb
     FROM unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::text[], $${first + 3}::int[], $${first + 4}::text[])
          WITH ORDINALITY AS e (session_id, kind, step_id, attempt, detail, n)
     JOIN ${source} s ON s.session_id = e.session_id
    ORDER BY e.n
   ON CONFLICT DO NOTHING`;

/**
 * A change's statement with its entries in the same statement: `change` must return the `session_id`
 * and `account_id` of each row it changed; the result is the change's rows, as the change alone would
 * have answered. Entries of a session the change did not touch are dropped with it.
 */
export function loggedChange(
  change: string,
  values: readonly unknown[],
  sessions: readonly SessionTimeline[],
): { text: string; values: unknown[] } {
  if (!sessions.some((session) => session.drafts.length > 0)) return { text: change, values: [...values] };
  return {
    text: `WITH changed AS (${change}), logged AS (${insertFrom('changed', values.length + 1)}) SELECT * FROM changed`,
    values: [...values, ...arraysOf(sessions)],
  };
}

/** Appends one session's entries inside the caller's transaction (the change they report is in it). */
export async function appendTimeline(
  db: Queryable,
  accountId: AccountId,
  sessionId: SessionId,
  drafts: readonly TimelineDraft[],
): Promise<void> {
  if (drafts.length === 0) return;
  await db.query(`WITH owner AS (SELECT $1::text AS session_id, $2::text AS account_id) ${insertFrom('owner', 3)}`, [
    sessionId,
    accountId,
    ...arraysOf([{ sessionId, drafts }]),
  ]);
}

interface EntryRow {
  id: string;
  at: Date;
  kind: TimelineEntry['kind'];
  step_id: string | null;
  attempt: number | null;
  detail: TimelineDetail;
}

const toEntry = (row: EntryRow): TimelineEntry => ({
  id: row.id,
  at: toTimestamp(row.at),
  kind: row.kind,
  ...(row.step_id === null ? {} : { step_id: row.step_id }),
  ...(row.attempt === null ? {} : { attempt: row.attempt }),
  ...row.detail,
});

/** The timeline's reads, for the dashboard's session page: always by account and session. */
export class PgTimeline implements TimelinePort {
  constructor(private readonly pool: Pool) {}

  async page(accountId: AccountId, sessionId: SessionId, after: string | null, limit: number): Promise<TimelinePage> {
    const { rows } = await this.pool.query<EntryRow>(
      // Ordered by the column, not by the text the answer carries ('10' < '9').
      `SELECT t.id::text AS id, t.at, t.kind, t.step_id, t.attempt, t.detail FROM timeline_entries t
        WHERE t.session_id = $1 AND t.account_id = $2 AND t.id > $3::bigint
        ORDER BY t.id LIMIT $4`,
      [sessionId, accountId, after ?? '0', limit + 1],
    );
    return { entries: rows.slice(0, limit).map(toEntry), hasMore: rows.length > limit };
  }

  async hasFlow(accountId: AccountId, sessionId: SessionId): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT 1 FROM flows WHERE session_id = $1 AND account_id = $2', [
      sessionId,
      accountId,
    ]);
    return rows.length > 0;
  }
}
