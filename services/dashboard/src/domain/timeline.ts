import type { AccountSession, TimelineEntry, WebhookDelivery } from '@idv/contracts';

/**
 * One line of a session's timeline. Three services each know a part: the sessions service the
 * creation (with its key) and the decision, the flow-runner what happened in the person's flow, the
 * webhooks service each delivery attempt. None carries personal data.
 */
export type TimelineItem =
  | { kind: 'created'; at: string; keyName: string | null; isTry: boolean }
  | { kind: 'flow'; at: string; entry: TimelineEntry }
  | { kind: 'completed'; at: string; status: AccountSession['status']; reasonCodes: string[] }
  | { kind: 'delivery'; at: string; delivery: WebhookDelivery };

/** The order a page reads them in when two share a millisecond: creation, the flow, the decision, its deliveries. */
const RANK: Record<TimelineItem['kind'], number> = { created: 0, flow: 1, completed: 2, delivery: 3 };

/** Every source's items in one list, oldest first; each source's own order is kept among equal times. */
export function sessionTimeline(
  session: AccountSession,
  keyName: string | null,
  flow: readonly TimelineEntry[],
  deliveries: readonly WebhookDelivery[],
): TimelineItem[] {
  const items: TimelineItem[] = [
    { kind: 'created', at: session.created_at, keyName, isTry: session.try === true },
    ...flow.map((entry): TimelineItem => ({ kind: 'flow', at: entry.at, entry })),
    ...(session.completed_at
      ? [
          {
            kind: 'completed' as const,
            at: session.completed_at,
            status: session.status,
            reasonCodes: session.result?.reason_codes ?? [],
          },
        ]
      : []),
    ...[...deliveries]
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.attempt - b.attempt)
      .map((delivery): TimelineItem => ({ kind: 'delivery', at: delivery.created_at, delivery })),
  ];
  // A stable sort: within one time and kind, each source's order stands.
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => a.item.at.localeCompare(b.item.at) || RANK[a.item.kind] - RANK[b.item.kind] || a.index - b.index)
    .map(({ item }) => item);
}
