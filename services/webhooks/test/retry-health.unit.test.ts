import { decideDelivery, type MessageState } from '../src/domain/delivery-decision';
import { bucketStarts, endpointHealth, healthStart, p95Of } from '../src/domain/health';
import { retryIntervalMs, retryState } from '../src/domain/retry';
import { timings } from '../src/domain/schedule';
import { buildMessage } from './support/messages';

const t = timings(1);
const retry = (overrides: Partial<MessageState> = {}): MessageState => buildMessage({ kind: 'retry', ...overrides });

describe('the delivery policy for a retry of failed deliveries', () => {
  it('when the circuit is closed or half-open, then it is sent', () => {
    expect(decideDelivery(retry(), { step: 'claimed' }, t)).toEqual({ action: 'send', withEvidenceLinks: false });
    expect(decideDelivery(retry({ circuitTripped: true }), { step: 'claimed' }, t).action).toBe('send');
  });

  it('when the circuit is open, then it is postponed (not skipped and logged as an automatic message is)', () => {
    expect(decideDelivery(retry({ circuitOpen: true }), { step: 'claimed' }, t)).toEqual({ action: 'postpone_retry' });
  });

  it('when the endpoint is disabled or deleted, then it is dropped', () => {
    expect(decideDelivery(retry({ endpointStatus: 'disabled' }), { step: 'claimed' }, t)).toEqual({ action: 'drop' });
    expect(decideDelivery(retry({ endpointDeleted: true }), { step: 'claimed' }, t)).toEqual({ action: 'drop' });
  });

  it('when it fails, then it is not retried and feeds the circuit; when it succeeds on a tripped circuit, then it closes it', () => {
    const failed = decideDelivery(retry(), { step: 'sent', response: { kind: 'answered', httpStatus: 503, durationMs: 5 } }, t);
    expect(failed).toMatchObject({
      action: 'record',
      circuit: 'failure',
      plan: { attempt: 1, messageStatus: 'failed', waitMs: null },
    });
    const succeeded = decideDelivery(
      retry({ circuitTripped: true }),
      { step: 'sent', response: { kind: 'answered', httpStatus: 200, durationMs: 5 } },
      t,
    );
    expect(succeeded).toMatchObject({ action: 'record', circuit: 'success', plan: { messageStatus: 'succeeded' } });
  });

  it('when the pace is asked for, then messages are due that far apart, and a retry runs while one waits', () => {
    expect(retryIntervalMs(10)).toBe(100);
    expect(retryIntervalMs(3)).toBe(333);
    expect(retryIntervalMs(5000)).toBe(1);
    expect(retryState({ pending: 1, sent: 4, failed: 0, canceled: 0 })).toBe('running');
    expect(retryState({ pending: 0, sent: 4, failed: 1, canceled: 1 })).toBe('finished');
  });
});

describe("an endpoint's health windows", () => {
  const now = new Date('2026-11-30T02:30:00.000Z'); // 23:30 on the 29th in Argentina

  it('when asked at a moment, then the hours end with the current one and the days start at Argentina’s midnight', () => {
    const hours = bucketStarts('hour', now);
    expect(hours).toHaveLength(24);
    expect(hours[23]!.toISOString()).toBe('2026-11-30T02:00:00.000Z');
    expect(hours[0]!.toISOString()).toBe('2026-11-29T03:00:00.000Z');
    const days = bucketStarts('day', now);
    expect(days.map((day) => day.toISOString())).toEqual([
      '2026-11-23T03:00:00.000Z',
      '2026-11-24T03:00:00.000Z',
      '2026-11-25T03:00:00.000Z',
      '2026-11-26T03:00:00.000Z',
      '2026-11-27T03:00:00.000Z',
      '2026-11-28T03:00:00.000Z',
      '2026-11-29T03:00:00.000Z',
    ]);
    expect(healthStart(now)).toEqual(days[0]);
  });

  it('when latencies are counted in buckets, then the p95 is the upper bound of the bucket of the 95th', () => {
    expect(p95Of({})).toBeNull();
    // 19 at ~100 ms (bucket 48), 1 at ~900 ms (bucket 71): the 19th of 20 is in bucket 48.
    expect(p95Of({ 48: 19, 71: 1 })).toBe(Math.round(1.1 ** 49));
    expect(p95Of({ 48: 18, 71: 1 })).toBe(Math.round(1.1 ** 72));
  });

  it('when hours are summed, then each window and bucket has its attempts, rate and p95, and empty ones have none', () => {
    const health = endpointHealth(now, [
      { hour: new Date('2026-11-30T02:00:00.000Z'), attempts: 4, succeeded: 3, latency: { 48: 4 } },
      { hour: new Date('2026-11-25T10:00:00.000Z'), attempts: 6, succeeded: 0, latency: {} },
    ]);
    expect(health.last24h).toMatchObject({ attempts: 4, succeeded: 3, successRate: 0.75, p95Ms: 107 });
    expect(health.last24h.buckets[0]).toMatchObject({ attempts: 0, successRate: null, p95Ms: null });
    expect(health.last7d).toMatchObject({ attempts: 10, succeeded: 3, successRate: 0.3, p95Ms: 107 });
    expect(health.last7d.buckets.map((day) => day.attempts)).toEqual([0, 0, 6, 0, 0, 0, 4]);
  });
});
