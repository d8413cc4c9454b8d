import { DOMAIN_EVENT_DATA_SCHEMAS, type AccountId, type DomainEvent, type WebhookEndpointId } from '@idv/contracts';

/**
 * The owners' notices (issue 41): what the other services announce that an account's owners must hear of
 * by e-mail, as the dashboard reads each event. Pure: the consumer validates, the mailer writes.
 */
export const NOTICE_EVENT_TYPES = [
  'balance.low',
  'balance.depleted',
  'webhook_endpoint.circuit_opened',
  'webhook_endpoint.circuit_closed',
] as const;
export type NoticeEventType = (typeof NOTICE_EVENT_TYPES)[number];

/** The broker bindings of the notices' queue. */
export const NOTICE_BINDINGS = ['balance.*', 'webhook_endpoint.*'];

export interface BalanceNotice {
  kind: 'balance_low' | 'balance_depleted';
  accountId: AccountId;
  balance: number;
  threshold: number;
  thresholdSource: 'owner' | 'default';
}

export interface CircuitNotice {
  kind: 'circuit_opened' | 'circuit_closed';
  accountId: AccountId;
  endpointId: WebhookEndpointId;
  url: string;
  at: Date;
  nextAttemptAt: Date | null;
}

export type Notice = BalanceNotice | CircuitNotice;

export const isBalanceNotice = (notice: Notice): notice is BalanceNotice =>
  notice.kind === 'balance_low' || notice.kind === 'balance_depleted';

export type NoticeKind = Notice['kind'];

/** The audit log's action for each notice (the actor is the service). */
export const NOTICE_AUDIT_ACTIONS: Record<NoticeKind, string> = {
  balance_low: 'notification.balance_low',
  balance_depleted: 'notification.balance_depleted',
  circuit_opened: 'notification.circuit_opened',
  circuit_closed: 'notification.circuit_closed',
};

/** An event read from the queue: a notice, one that is not a notice's (not ours), or malformed (dead-lettered). */
export type ReadNotice = { kind: 'notice'; notice: Notice } | { kind: 'not_a_notice' } | { kind: 'malformed'; issues: string[] };

export function readNotice(event: DomainEvent): ReadNotice {
  const type = event.type as string;
  if (!(NOTICE_EVENT_TYPES as readonly string[]).includes(type)) return { kind: 'not_a_notice' };
  switch (type as NoticeEventType) {
    case 'balance.low':
    case 'balance.depleted': {
      const parsed = DOMAIN_EVENT_DATA_SCHEMAS['balance.low'].safeParse(event.data);
      if (!parsed.success) return { kind: 'malformed', issues: parsed.error.issues.map((issue) => issue.message) };
      const { data } = parsed;
      return {
        kind: 'notice',
        notice: {
          kind: type === 'balance.low' ? 'balance_low' : 'balance_depleted',
          accountId: data.account_id,
          balance: data.balance,
          threshold: data.threshold,
          thresholdSource: data.threshold_source,
        },
      };
    }
    case 'webhook_endpoint.circuit_opened':
    case 'webhook_endpoint.circuit_closed': {
      const parsed = DOMAIN_EVENT_DATA_SCHEMAS['webhook_endpoint.circuit_opened'].safeParse(event.data);
      if (!parsed.success) return { kind: 'malformed', issues: parsed.error.issues.map((issue) => issue.message) };
      const { data } = parsed;
      return {
        kind: 'notice',
        notice: {
          kind: type === 'webhook_endpoint.circuit_opened' ? 'circuit_opened' : 'circuit_closed',
          accountId: data.account_id,
          endpointId: data.endpoint_id,
          url: data.url,
          at: new Date(data.at),
          nextAttemptAt: data.next_attempt_at === null ? null : new Date(data.next_attempt_at),
        },
      };
    }
  }
}

/** The dashboard page the notice sends the owner to: the tokens page, or the endpoint's. */
export function noticeLink(notice: Notice, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return isBalanceNotice(notice) ? `${base}/balance` : `${base}/webhooks/${notice.endpointId}`;
}

/** What the audit entry is about: the endpoint, or the balance against its threshold. */
export function noticeTarget(notice: Notice): string {
  return isBalanceNotice(notice) ? `balance=${notice.balance} threshold=${notice.threshold}` : notice.endpointId;
}
