import { TERMINAL_STATUSES, type SessionEventType, type SessionResult, type SessionStatus } from '@idv/contracts';

/**
 * The session state machine (docs/design.md "Session status"), the only place that decides whether a
 * status change is legal and which events it emits:
 *
 *   pending ─redeem→ in_progress ─resolve→ approved | rejected
 *   pending | in_progress ─expire→ expired, ─cancel→ canceled;   in_progress ─abandon→ abandoned
 */
const ALLOWED: Record<SessionStatus, readonly SessionStatus[]> = {
  pending: ['in_progress', 'expired', 'canceled'],
  in_progress: ['approved', 'rejected', 'expired', 'abandoned', 'canceled'],
  approved: [],
  rejected: [],
  expired: [],
  abandoned: [],
  canceled: [],
};

export type SessionAction =
  | { kind: 'redeem' }
  | { kind: 'resolve'; result: SessionResult & { outcome: 'approved' | 'rejected' } }
  | { kind: 'expire'; steps: SessionResult['steps'] }
  | { kind: 'abandon'; steps: SessionResult['steps'] }
  | { kind: 'cancel' };

export interface Transition {
  from: SessionStatus;
  to: SessionStatus;
  /** Set when the new status carries a result (approved, rejected, expired, abandoned). */
  result: SessionResult | null;
  /** Set when the new status is terminal. */
  completedAt: Date | null;
  /** Event types to write to the outbox in the same transaction, in this order. */
  events: SessionEventType[];
}

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: SessionStatus,
    readonly to: SessionStatus,
  ) {
    super(`A session cannot go from ${from} to ${to}.`);
    this.name = 'IllegalTransitionError';
  }

  /** The session was already terminal: nothing can change it any more. */
  get terminal(): boolean {
    return isTerminal(this.from);
  }
}

export function isTerminal(status: SessionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: SessionStatus, to: SessionStatus): boolean {
  return ALLOWED[from].includes(to);
}

function target(action: SessionAction): SessionStatus {
  switch (action.kind) {
    case 'redeem':
      return 'in_progress';
    case 'resolve':
      return action.result.outcome;
    case 'expire':
      return 'expired';
    case 'abandon':
      return 'abandoned';
    case 'cancel':
      return 'canceled';
  }
}

function outcomeOf(action: SessionAction): { result: SessionResult | null; events: SessionEventType[] } {
  switch (action.kind) {
    case 'redeem':
      return { result: null, events: [] };
    case 'resolve':
      return {
        result: action.result,
        events: [`verification_session.${action.result.outcome}`, 'verification_session.completed'],
      };
    case 'expire':
      return {
        result: { outcome: 'expired', reason_codes: [], steps: action.steps },
        events: ['verification_session.expired'],
      };
    case 'abandon':
      return {
        result: { outcome: 'abandoned', reason_codes: [], steps: action.steps },
        events: ['verification_session.expired'],
      };
    case 'cancel':
      return { result: null, events: ['verification_session.canceled'] };
  }
}

/** Computes a transition or throws `IllegalTransitionError`; pure, writes nothing. */
export function transition(from: SessionStatus, action: SessionAction, at: Date): Transition {
  const to = target(action);
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
  const { result, events } = outcomeOf(action);
  return { from, to, result, completedAt: isTerminal(to) ? at : null, events };
}
