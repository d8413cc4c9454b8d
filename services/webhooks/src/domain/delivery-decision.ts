import type { ReceivedReply } from './exchange';
import type { ClaimedMessage, DeliveryError, DeliveryStatus, MessageStatus } from './message';
import { afterAttempt, circuitRequeueWait, type AttemptDecision, type Timings } from './schedule';

/** What the receiver did, as the transport saw it (no judgement yet of what it means). */
export type ReceiverResponse =
  /** The whole response (headers and body) arrived within the timeout. */
  | { kind: 'answered'; httpStatus: number; durationMs: number; reply?: ReceivedReply }
  /** No complete response: refused, reset, timed out, not allowed to dial… (`httpStatus` and `reply` if headers came). */
  | {
      kind: 'failed';
      httpStatus: number | null;
      durationMs: number;
      error: TransportError;
      reason: string;
      reply?: ReceivedReply;
    };

/** The failures the transport names; `redirect` and `http_status` are read from an answer here. */
export type TransportError = Exclude<DeliveryError, 'circuit_breaker_open' | 'redirect' | 'http_status'>;

/** An attempt as the delivery log tells it (spec "Delivery rules": only a 2xx is a success). */
export type AttemptOutcome =
  | { succeeded: true; httpStatus: number; durationMs: number; error: null; failureReason: null }
  | { succeeded: false; httpStatus: number | null; durationMs: number; error: DeliveryError; failureReason: string };

/** The HTTP status mapping: 2xx succeeds; a redirect is never followed; any other status fails. */
export function attemptOutcome(response: ReceiverResponse): AttemptOutcome {
  switch (response.kind) {
    case 'failed': {
      const { httpStatus, durationMs, error, reason } = response;
      return { succeeded: false, httpStatus, durationMs, error, failureReason: reason };
    }
    case 'answered': {
      const { httpStatus, durationMs } = response;
      if (httpStatus >= 200 && httpStatus < 300)
        return { succeeded: true, httpStatus, durationMs, error: null, failureReason: null };
      if (httpStatus >= 300 && httpStatus < 400) {
        return {
          succeeded: false,
          httpStatus,
          durationMs,
          error: 'redirect',
          failureReason: `redirect ${httpStatus} (never followed)`,
        };
      }
      return { succeeded: false, httpStatus, durationMs, error: 'http_status', failureReason: `receiver answered ${httpStatus}` };
    }
  }
}

/** Where a message's attempt stands when the decision is asked for. */
export type DeliveryStep =
  | { step: 'claimed' }
  /** The flow-runner could not make the evidence links the event must carry. */
  | { step: 'evidence_unavailable' }
  | { step: 'sent'; response: ReceiverResponse };

/** How an attempt feeds its endpoint's circuit (the threshold is counted in the database, shared by replicas). */
export type CircuitFeed = 'none' | 'success' | 'failure';

/** An attempt to log, and where it leaves the message. */
export type AttemptPlan = {
  attempt: number;
  attemptsUsed: number;
  messageStatus: MessageStatus;
  waitMs: number | null;
  deliveryStatus: DeliveryStatus;
  httpStatus: number | null;
  durationMs: number | null;
  error: DeliveryError | null;
  failureReason: string | null;
};

/** Endpoint deleted, or disabled for an automatic message: the message is canceled, nothing is logged. */
export type DropDecision = { action: 'drop' };
/** The circuit is open: no request; logged as failed and due again after the same wait, no attempt used. */
export type SkipDecision = { action: 'skip_open_circuit'; plan: AttemptPlan };
export type SendDecision = { action: 'send'; withEvidenceLinks: boolean };
/**
 * A retry's message while the circuit is open: nothing sent or logged, no attempt used; it and the rest of its
 * retry are due again from the end of the open period on, at the retry's pace.
 */
export type PostponeDecision = { action: 'postpone_retry' };
/** Not the receiver's fault: nothing logged, no attempt used, the circuit not fed; the claim's lease runs out. */
export type DeferDecision = { action: 'defer' };
/** A successful automatic attempt: the hot path, recorded in batches. */
export type RecordSuccessDecision = {
  action: 'record_success';
  attempt: number;
  httpStatus: number;
  durationMs: number;
  circuit: CircuitFeed;
};
export type RecordDecision = { action: 'record'; plan: AttemptPlan; circuit: CircuitFeed };

export type DeliveryDecision =
  DropDecision | SkipDecision | PostponeDecision | SendDecision | DeferDecision | RecordSuccessDecision | RecordDecision;

/** What of a claimed message the decision reads. */
export type MessageState = Pick<
  ClaimedMessage,
  | 'kind'
  | 'attempts'
  | 'lastWaitMs'
  | 'evidenceLinks'
  | 'endpointStatus'
  | 'endpointDeleted'
  | 'circuitOpen'
  | 'consecutiveFailures'
  | 'circuitTripped'
>;

/** Where a real attempt leaves its message, by what the retry schedule says next. */
const STATUS_AFTER: Record<AttemptDecision['kind'], MessageStatus> = {
  done: 'succeeded',
  retry: 'pending',
  dead: 'dead',
  single_shot_failed: 'failed',
};

const CIRCUIT_OPEN_REASON = 'the endpoint circuit is open after consecutive failures; no request was sent';

/**
 * The whole delivery policy, in one place: what happens to a claimed message at each step of its
 * attempt. Automatic messages (`event`) follow the retry schedule and the circuit; `test` and
 * `redeliver` are sent once whatever the circuit, and a `test` never feeds it; a `retry` is sent once,
 * waits while the circuit is open and feeds it (so a receiver still down opens it and holds the rest).
 */
export function decideDelivery(
  message: MessageState,
  step: { step: 'claimed' },
  t: Pick<Timings, 'waitAfter'>,
): DropDecision | SkipDecision | PostponeDecision | SendDecision;
export function decideDelivery(
  message: MessageState,
  step: { step: 'evidence_unavailable' },
  t: Pick<Timings, 'waitAfter'>,
): DeferDecision;
export function decideDelivery(
  message: MessageState,
  step: { step: 'sent'; response: ReceiverResponse },
  t: Pick<Timings, 'waitAfter'>,
): RecordSuccessDecision | RecordDecision;
export function decideDelivery(message: MessageState, step: DeliveryStep, t: Pick<Timings, 'waitAfter'>): DeliveryDecision {
  const automatic = message.kind === 'event';
  const retry = message.kind === 'retry';
  switch (step.step) {
    case 'claimed': {
      // Disabling an endpoint stops a retry under way too.
      if (message.endpointDeleted || ((automatic || retry) && message.endpointStatus !== 'active')) return { action: 'drop' };
      if (retry && message.circuitOpen) return { action: 'postpone_retry' };
      if (automatic && message.circuitOpen) {
        return {
          action: 'skip_open_circuit',
          plan: {
            attempt: message.attempts + 1,
            attemptsUsed: message.attempts,
            messageStatus: 'pending',
            waitMs: circuitRequeueWait(message.lastWaitMs, t),
            deliveryStatus: 'failed',
            httpStatus: null,
            durationMs: null,
            error: 'circuit_breaker_open',
            failureReason: CIRCUIT_OPEN_REASON,
          },
        };
      }
      return { action: 'send', withEvidenceLinks: message.evidenceLinks };
    }
    case 'evidence_unavailable':
      return { action: 'defer' };
    case 'sent': {
      const outcome = attemptOutcome(step.response);
      const attempt = message.attempts + 1;
      // A success on a clean endpoint writes nothing to the circuit (saves a statement per delivery).
      // A circuit past its open period is not clean: the success that follows closes it (and is announced).
      const circuitClean = message.consecutiveFailures === 0 && !message.circuitOpen && !message.circuitTripped;
      const circuit: CircuitFeed =
        message.kind === 'test' || (outcome.succeeded && circuitClean) ? 'none' : outcome.succeeded ? 'success' : 'failure';
      if (automatic && outcome.succeeded) {
        return { action: 'record_success', attempt, httpStatus: outcome.httpStatus, durationMs: outcome.durationMs, circuit };
      }
      const next = afterAttempt({ succeeded: outcome.succeeded, attemptsUsed: attempt, automatic }, t);
      const messageStatus = STATUS_AFTER[next.kind];
      return {
        action: 'record',
        circuit,
        plan: {
          attempt: automatic ? attempt : 1,
          attemptsUsed: attempt,
          messageStatus,
          waitMs: next.kind === 'retry' ? next.waitMs : null,
          deliveryStatus: messageStatus === 'pending' ? 'failed' : messageStatus,
          httpStatus: outcome.httpStatus,
          durationMs: outcome.durationMs,
          error: outcome.error,
          failureReason: outcome.failureReason,
        },
      };
    }
  }
}
