import { Receiver, behaviours } from '@idv/testkit';
import { EventPublisher, createEndpoint, deliveries, eventually, newTenant } from './support/harness';

const TIME_SCALE = Number(process.env.TIME_SCALE ?? '0.05');
const WAITS = [10, 20, 40, 80, 160, 320, 640].map((s) => s * 1000 * TIME_SCALE);
const CIRCUIT_OPEN = 15 * 60 * 1000 * TIME_SCALE;
const tolerance = (ms: number) => ms * 0.1 + 300;

const publisher = new EventPublisher();
let target: Receiver;

beforeAll(async () => {
  target = await Receiver.start(behaviours.status(500));
});
afterAll(async () => {
  await publisher.close();
  await target.close();
});

describe('retry schedule (TIME_SCALE=0.05)', () => {
  it('when an endpoint always fails, then attempts follow 10/20/40/80/160/320/640 s (scaled), the circuit pauses them without using attempts, and the 8th failure is dead', async () => {
    const tenant = await newTenant();
    const endpoint = await createEndpoint(tenant, target.url, ['verification_session.canceled']);
    const { eventId } = await publisher.publish(tenant, 'verification_session.canceled');
    const plannedTotal = WAITS.reduce((a, b) => a + b, 0) + CIRCUIT_OPEN;

    const log = await eventually(
      async () => {
        const entries = await deliveries(tenant, endpoint.id);
        return entries.at(-1)?.status === 'dead' ? entries : undefined;
      },
      plannedTotal * 1.2 + 20_000,
      'the dead entry',
    );

    // Exactly 8 real attempts reached the receiver, numbered 1..8; the last one is dead.
    const real = log.filter((e) => e.error !== 'circuit_breaker_open');
    expect(real.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(real.map((e) => e.status)).toEqual([...Array(7).fill('failed'), 'dead']);
    expect(real.every((e) => e.http_status === 500 && e.error === 'http_status' && e.event_id === eventId)).toBe(true);
    expect(target.hits.filter((h) => h.body?.id === eventId)).toHaveLength(8);

    // The 5th consecutive failure opened the circuit: attempts due while open sent nothing, were
    // logged failed/circuit_breaker_open as the 6th attempt, and waited the same 160 s (scaled) again.
    const fifth = real[4]!;
    const openedAt = Date.parse(fifth.created_at);
    const skipped = log.filter((e) => e.error === 'circuit_breaker_open');
    expect(skipped.length).toBeGreaterThanOrEqual(4);
    for (const entry of skipped) {
      expect(entry).toMatchObject({ status: 'failed', attempt: 6, http_status: null, duration_ms: null });
      expect(Date.parse(entry.created_at)).toBeLessThan(openedAt + CIRCUIT_OPEN + tolerance(0));
    }
    // It closed by itself after the period: the 6th real attempt came after it.
    expect(Date.parse(real[5]!.created_at)).toBeGreaterThanOrEqual(openedAt + CIRCUIT_OPEN - 50);

    // Every entry (real or skipped) came when planned: the previous one plus the wait in force.
    let wait = 0;
    for (const [i, entry] of log.entries()) {
      if (i > 0) {
        const gap = Date.parse(entry.created_at) - Date.parse(log[i - 1]!.created_at);
        expect({ i, attempt: entry.attempt, gap, planned: wait, ok: Math.abs(gap - wait) <= tolerance(wait) }).toMatchObject({
          ok: true,
        });
      }
      if (entry.error !== 'circuit_breaker_open' && entry.attempt <= WAITS.length) wait = WAITS[entry.attempt - 1]!;
    }
    // The receiver saw the real attempts on the same plan.
    const hits = target.hits.filter((h) => h.body?.id === eventId).map((h) => h.at);
    for (let n = 1; n < hits.length; n++) {
      const gap = hits[n]! - hits[n - 1]!;
      const planned = n === 5 ? Math.ceil(CIRCUIT_OPEN / WAITS[4]!) * WAITS[4]! : WAITS[n - 1]!;
      expect({ n, gap, planned, ok: Math.abs(gap - planned) <= tolerance(planned) + 300 }).toMatchObject({ ok: true });
    }
  }, 240_000);
});
