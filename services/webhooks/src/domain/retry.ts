import type { AccountId, EventId, WebhookEndpointId, WebhookRetryId } from '@idv/contracts';

/**
 * A retry of an endpoint's failed deliveries in a time range: each event whose latest attempt in the range
 * failed and that has not succeeded since is sent once more, one message of kind `retry` each, due
 * `intervalMs` apart (the pace the receiver gets).
 */
export interface RetryJobRecord {
  id: WebhookRetryId;
  accountId: AccountId;
  endpointId: WebhookEndpointId;
  from: Date;
  to: Date;
  total: number;
  intervalMs: number;
  createdAt: Date;
  /** Its messages, counted now. */
  progress: RetryProgress;
}

/** Its messages by where they are: waiting, sent (whatever the answer), failed of those sent, dropped unsent. */
export interface RetryProgress {
  pending: number;
  sent: number;
  failed: number;
  canceled: number;
}

/** An event to send again and when its latest failed attempt in the range was (they go out in that order). */
export interface RetryCandidate {
  eventId: EventId;
  failedAt: Date;
}

export type RetryState = 'running' | 'finished';

export function retryState(progress: RetryProgress): RetryState {
  return progress.pending > 0 ? 'running' : 'finished';
}

/** Milliseconds between two sends at `perSecond` (at least 1). */
export function retryIntervalMs(perSecond: number): number {
  return Math.max(1, Math.round(1000 / perSecond));
}
