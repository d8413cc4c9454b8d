import { attemptOutcome, decideDelivery, type ReceiverResponse } from '../src/domain/delivery-decision';
import { timings } from '../src/domain/schedule';
import { buildMessage } from './support/messages';

const t = timings(1);
const CLAIMED = { step: 'claimed' } as const;

const answered = (httpStatus: number, durationMs = 12): ReceiverResponse => ({ kind: 'answered', httpStatus, durationMs });
const refused: ReceiverResponse = {
  kind: 'failed',
  httpStatus: null,
  durationMs: 3,
  error: 'connection_refused',
  reason: 'connect ECONNREFUSED',
};
const sent = (response: ReceiverResponse) => ({ step: 'sent', response }) as const;

describe('HTTP status mapping', () => {
  it.each([200, 201, 204, 299])('when the receiver answers %i, then the attempt succeeded', (status) => {
    expect(attemptOutcome(answered(status))).toEqual({
      succeeded: true,
      httpStatus: status,
      durationMs: 12,
      error: null,
      failureReason: null,
    });
  });

  it.each([301, 302, 307, 308])('when the receiver answers %i, then it failed as a redirect never followed', (status) => {
    expect(attemptOutcome(answered(status))).toMatchObject({
      succeeded: false,
      httpStatus: status,
      error: 'redirect',
      failureReason: `redirect ${status} (never followed)`,
    });
  });

  it.each([100, 400, 404, 410, 500, 503])('when the receiver answers %i, then it failed with http_status', (status) => {
    expect(attemptOutcome(answered(status))).toMatchObject({
      succeeded: false,
      httpStatus: status,
      error: 'http_status',
      failureReason: `receiver answered ${status}`,
    });
  });

  it('when the transport failed after the headers, then the failure keeps its marker and the status seen', () => {
    const slowBody: ReceiverResponse = { kind: 'failed', httpStatus: 200, durationMs: 10_000, error: 'timeout', reason: 'late' };
    expect(attemptOutcome(slowBody)).toEqual({
      succeeded: false,
      httpStatus: 200,
      durationMs: 10_000,
      error: 'timeout',
      failureReason: 'late',
    });
  });
});

describe('before sending', () => {
  it.each(['event', 'test', 'redeliver'] as const)('when the endpoint was deleted, then a %s message is dropped', (kind) => {
    expect(decideDelivery(buildMessage({ kind, endpointDeleted: true }), CLAIMED, t)).toEqual({ action: 'drop' });
  });

  it('when the endpoint is disabled, then an automatic message is dropped but a test or redelivery is sent', () => {
    expect(decideDelivery(buildMessage({ endpointStatus: 'disabled' }), CLAIMED, t)).toEqual({ action: 'drop' });
    for (const kind of ['test', 'redeliver'] as const) {
      expect(decideDelivery(buildMessage({ kind, endpointStatus: 'disabled' }), CLAIMED, t)).toEqual({
        action: 'send',
        withEvidenceLinks: false,
      });
    }
  });

  it('when the circuit is open, then an automatic message is logged as failed without a request, due again after the same wait, no attempt used', () => {
    const decision = decideDelivery(buildMessage({ attempts: 4, lastWaitMs: 80_000, circuitOpen: true }), CLAIMED, t);
    expect(decision).toEqual({
      action: 'skip_open_circuit',
      plan: {
        attempt: 5,
        attemptsUsed: 4,
        messageStatus: 'pending',
        waitMs: 80_000,
        deliveryStatus: 'failed',
        httpStatus: null,
        durationMs: null,
        error: 'circuit_breaker_open',
        failureReason: 'the endpoint circuit is open after consecutive failures; no request was sent',
      },
    });
  });

  it('when the circuit is open before any attempt, then the wait is the first one (10 s)', () => {
    const decision = decideDelivery(buildMessage({ circuitOpen: true }), CLAIMED, t);
    expect(decision).toMatchObject({ action: 'skip_open_circuit', plan: { attempt: 1, attemptsUsed: 0, waitMs: 10_000 } });
  });

  it.each(['test', 'redeliver'] as const)('when the circuit is open, then a %s message is sent anyway', (kind) => {
    expect(decideDelivery(buildMessage({ kind, circuitOpen: true }), CLAIMED, t)).toEqual({
      action: 'send',
      withEvidenceLinks: false,
    });
  });

  it('when the configuration opted in to evidence links, then they are made for the attempt', () => {
    expect(decideDelivery(buildMessage({ evidenceLinks: true }), CLAIMED, t)).toEqual({
      action: 'send',
      withEvidenceLinks: true,
    });
  });

  it('when the evidence links cannot be made, then the attempt is deferred: nothing logged, no attempt used, circuit untouched', () => {
    expect(decideDelivery(buildMessage({ evidenceLinks: true, attempts: 2 }), { step: 'evidence_unavailable' }, t)).toEqual({
      action: 'defer',
    });
  });
});

describe('after sending', () => {
  it('when an automatic attempt succeeds on a clean endpoint, then it is recorded in a batch and the circuit is not written', () => {
    expect(decideDelivery(buildMessage({ attempts: 2 }), sent(answered(200, 40)), t)).toEqual({
      action: 'record_success',
      attempt: 3,
      httpStatus: 200,
      durationMs: 40,
      circuit: 'none',
    });
  });

  it('when an automatic attempt succeeds after failures, then it closes the circuit', () => {
    expect(decideDelivery(buildMessage({ consecutiveFailures: 3 }), sent(answered(204)), t)).toMatchObject({
      action: 'record_success',
      circuit: 'success',
    });
  });

  it('when an attempt succeeds after the open period ran out (the counter reset when it opened), then it still closes the circuit', () => {
    expect(decideDelivery(buildMessage({ circuitTripped: true }), sent(answered(200)), t)).toMatchObject({
      action: 'record_success',
      circuit: 'success',
    });
  });

  it('when automatic attempts 1–7 fail, then each is due again after 10, 20, 40, 80, 160, 320, 640 s and feeds the circuit', () => {
    const decisions = [0, 1, 2, 3, 4, 5, 6].map((attempts) => decideDelivery(buildMessage({ attempts }), sent(answered(500)), t));
    expect(decisions.map((d) => d.action === 'record' && [d.plan.messageStatus, d.plan.waitMs, d.circuit])).toEqual(
      [10, 20, 40, 80, 160, 320, 640].map((s) => ['pending', s * 1000, 'failure']),
    );
    expect(decisions[0]).toEqual({
      action: 'record',
      circuit: 'failure',
      plan: {
        attempt: 1,
        attemptsUsed: 1,
        messageStatus: 'pending',
        waitMs: 10_000,
        deliveryStatus: 'failed',
        httpStatus: 500,
        durationMs: 12,
        error: 'http_status',
        failureReason: 'receiver answered 500',
      },
    });
  });

  it('when the 8th automatic attempt fails, then the message and its log line are dead', () => {
    expect(decideDelivery(buildMessage({ attempts: 7 }), sent(refused), t)).toMatchObject({
      action: 'record',
      circuit: 'failure',
      plan: {
        attempt: 8,
        attemptsUsed: 8,
        messageStatus: 'dead',
        deliveryStatus: 'dead',
        waitMs: null,
        error: 'connection_refused',
      },
    });
  });

  it('when a redelivery fails, then it is logged as attempt 1, not retried, and feeds the circuit', () => {
    expect(decideDelivery(buildMessage({ kind: 'redeliver' }), sent(answered(302)), t)).toMatchObject({
      action: 'record',
      circuit: 'failure',
      plan: { attempt: 1, attemptsUsed: 1, messageStatus: 'failed', deliveryStatus: 'failed', waitMs: null, error: 'redirect' },
    });
  });

  it('when a redelivery succeeds, then it is recorded on its own and closes a circuit that had failures', () => {
    expect(decideDelivery(buildMessage({ kind: 'redeliver' }), sent(answered(200)), t)).toMatchObject({
      action: 'record',
      circuit: 'none',
      plan: { attempt: 1, messageStatus: 'succeeded', deliveryStatus: 'succeeded', error: null },
    });
    expect(decideDelivery(buildMessage({ kind: 'redeliver', circuitOpen: true }), sent(answered(200)), t)).toMatchObject({
      action: 'record',
      circuit: 'success',
    });
  });

  it('when a test event fails or succeeds, then it is not retried and never feeds the circuit', () => {
    for (const response of [refused, answered(500), answered(200)]) {
      const decision = decideDelivery(buildMessage({ kind: 'test', consecutiveFailures: 4 }), sent(response), t);
      expect(decision).toMatchObject({ action: 'record', circuit: 'none', plan: { attempt: 1, waitMs: null } });
    }
  });
});
