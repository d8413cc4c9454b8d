import { eventId, newId, type AccountId } from '@idv/contracts';
import { receiversOfThisFile, waitFor, type Hit } from '@idv/testkit';
import { fanOut } from '../src/adapters/messages.repository';
import { inProcessWebhooks } from './support/in-process';
import { verifySignature } from './support/verify';

/**
 * "Retry every failed delivery in a time range" and an endpoint's health, through the service's internal routes,
 * in this process over a private database of the test's own, with its own dispatchers (started and stopped by
 * the tests) delivering to real receivers on 127.0.0.1. Real timings (TIME_SCALE 1): an automatic retry is
 * 10 s away, so what reaches a receiver during a test came from the retry.
 */
/** The pace of this file's retries: 20 a second, 50 ms apart. */
const PER_SECOND = 20;
const service = inProcessWebhooks('retry', { timeScale: 1, senderTimeoutMs: 5000, retryPerSecond: PER_SECOND });
const { call, endpointOf } = service;
const receiver = receiversOfThisFile();

const iso = (ms: number) => new Date(ms).toISOString();
const lastHour = () => ({ from: iso(Date.now() - 3600_000), to: iso(Date.now() + 60_000) });

/** Events of the account whose one attempt to the endpoint is logged with `status`, `agoMs` ago (no message waits). */
async function loggedEvents(
  accountId: AccountId,
  endpointId: string,
  count: number,
  status: 'failed' | 'dead' | 'succeeded',
  agoMs = 60_000,
): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const session = newId('session');
    const id = eventId(accountId, session, 'verification_session.approved');
    await service.pool.query(
      `INSERT INTO events (id, account_id, type, data, occurred_at) VALUES ($1, $2, 'verification_session.approved', $3, now())`,
      [id, accountId, JSON.stringify({ id: session, object: 'verification_session', status: 'approved' })],
    );
    await service.pool.query(
      `INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status, http_status,
                               duration_ms, error, failure_reason, created_at)
       VALUES ($1, $2, $3, 'msg_seeded', $4, 'verification_session.approved', 1, $5, $6, 30, $7, $8, now() - $9 * interval '1 millisecond')`,
      [
        newId('webhookDelivery'),
        accountId,
        endpointId,
        id,
        status,
        status === 'succeeded' ? 200 : 503,
        status === 'succeeded' ? null : 'http_status',
        status === 'succeeded' ? null : 'receiver answered 503',
        agoMs,
      ],
    );
    ids.push(id);
  }
  return ids;
}

const retries = (accountId: AccountId, endpointId: string) =>
  `/internal/accounts/${accountId}/webhook-endpoints/${endpointId}/retries`;

/** The retry once it has finished. */
function finished(accountId: AccountId, retryId: string, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const job = await call('GET', `/internal/accounts/${accountId}/webhook-retries/${retryId}`);
      return job.body.state === 'finished' ? job.body : undefined;
    },
    timeoutMs,
    50,
    'the retry finished',
  );
}

const countBy = (hits: Hit[]) =>
  hits.reduce((counts, hit) => counts.set(hit.body.id, (counts.get(hit.body.id) ?? 0) + 1), new Map<string, number>());

describe('retry every failed delivery of an endpoint in a time range', () => {
  it('when a receiver failed some events and recovered, then the retry sends each failed one exactly once, signed, and none that succeeded', async () => {
    const accountId = newId('account');
    const failing = new Set<string>();
    const target = await receiver((hit, res) => res.writeHead(failing.has(hit.body.id) ? 503 : 200).end());
    const endpoint = await endpointOf(accountId, target.url);
    const started = Date.now();
    // Real automatic deliveries: 3 events the receiver refuses, 2 it takes (interleaved: the circuit stays closed).
    const events: { id: string; fails: boolean }[] = [];
    for (let n = 0; n < 5; n += 1) {
      const session = newId('session');
      const id = eventId(accountId, session, 'verification_session.approved');
      if (n % 2 === 0) failing.add(id);
      events.push({ id, fails: n % 2 === 0 });
      await fanOut(service.pool, accountId, {
        id,
        type: 'verification_session.approved',
        data: { id: session, object: 'verification_session', status: 'approved' },
        options: {},
        occurredAt: new Date().toISOString(),
      });
    }
    service.dispatcher!.wake();
    await waitFor(
      async () =>
        (await call('GET', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/deliveries`)).body.data.length >= 5,
      15_000,
      20,
      'the first attempts logged',
    );
    // The receiver is back; the failed events' automatic retries are 10 s away: the retry takes them over.
    failing.clear();
    const start = await call('POST', retries(accountId, endpoint.id), { from: iso(started - 1000), to: iso(Date.now() + 1000) });
    expect(start.status).toBe(201);
    expect(start.body).toMatchObject({ object: 'webhook_retry', state: 'running', total: 3, per_second: PER_SECOND });
    const done = await finished(accountId, start.body.id);
    expect(done).toMatchObject({ state: 'finished', total: 3, done: 3, failed: 0, canceled: 0 });

    const counts = countBy(target.hits);
    for (const event of events) expect([event.id, counts.get(event.id)]).toEqual([event.id, event.fails ? 2 : 1]);
    const retried = target.hits.slice(5);
    expect(retried.map((hit) => hit.body.id).sort()).toEqual(
      events
        .filter((e) => e.fails)
        .map((e) => e.id)
        .sort(),
    );
    for (const hit of retried) {
      expect(verifySignature(hit.headers['x-service-signature'] as string, hit.raw, endpoint.secret)).toBe(true);
      // A fresh signature: signed at the moment of the retry.
      expect(Date.parse(hit.body.created_at)).toBeGreaterThan(target.hits[4]!.at - 1000);
    }
    // Nothing is left to send them again: the automatic retries were canceled, the retry's messages are done.
    const { rows } = await service.pool.query<{ kind: string; status: string; n: number }>(
      `SELECT kind, status, count(*)::int AS n FROM messages WHERE endpoint_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [endpoint.id],
    );
    expect(rows).toEqual([
      { kind: 'event', status: 'canceled', n: 3 },
      { kind: 'event', status: 'succeeded', n: 2 },
      { kind: 'retry', status: 'succeeded', n: 3 },
    ]);
    // Started again, it finds nothing: every event succeeded since.
    const again = await call('POST', retries(accountId, endpoint.id), { from: iso(started - 1000), to: iso(Date.now() + 1000) });
    expect(again.body).toMatchObject({ total: 0, state: 'finished' });
    const listed = await call('GET', retries(accountId, endpoint.id));
    expect(listed.body.data.map((job: { id: string }) => job.id)).toEqual([again.body.id, start.body.id]);
  });

  it('when it is started twice at once, then one start is refused with 409 and each event is sent once', async () => {
    const accountId = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(200).end());
    const endpoint = await endpointOf(accountId, target.url);
    const ids = await loggedEvents(accountId, endpoint.id, 6, 'failed');
    await loggedEvents(accountId, endpoint.id, 2, 'succeeded');
    // A failed test event is not retried (tests are sent on demand).
    const testEvent = `evt_${'0'.repeat(24)}${Date.now().toString(16).slice(-8)}`;
    await service.pool.query(
      `INSERT INTO events (id, account_id, type, data, occurred_at) VALUES ($1, $2, 'test', '{}', now())`,
      [testEvent, accountId],
    );
    await service.pool.query(
      `INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status, http_status, created_at)
       VALUES ($1, $2, $3, 'msg_seeded', $4, 'test', 1, 'failed', 503, now() - interval '1 minute')`,
      [newId('webhookDelivery'), accountId, endpoint.id, testEvent],
    );
    const range = lastHour();
    const answers = await Promise.all([
      call('POST', retries(accountId, endpoint.id), range),
      call('POST', retries(accountId, endpoint.id), range),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const refused = answers.find((answer) => answer.status === 409)!;
    expect(refused.body.code).toBe('conflict');
    const job = answers.find((answer) => answer.status === 201)!.body;
    expect(job.total).toBe(6);
    await finished(accountId, job.id);
    expect([...countBy(target.hits)].sort()).toEqual(ids.map((id) => [id, 1]).sort());
  });

  it('when many events are retried, then they reach the receiver at the configured pace, in the order they failed', async () => {
    const accountId = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(200).end());
    const endpoint = await endpointOf(accountId, target.url);
    const ids: string[] = [];
    for (let n = 0; n < 12; n += 1) ids.push(...(await loggedEvents(accountId, endpoint.id, 1, 'dead', 120_000 - n * 1000)));
    // The account spent its test-and-redeliver quota: a retry neither needs nor takes any of it.
    await service.pool.query(`INSERT INTO admin_requests (account_id) SELECT $1 FROM generate_series(1, 10)`, [accountId]);
    expect((await call('POST', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/test`)).status).toBe(429);
    const start = await call('POST', retries(accountId, endpoint.id), lastHour());
    expect(start.status).toBe(201);
    expect(start.body.total).toBe(12);
    await finished(accountId, start.body.id);
    expect(target.hits.map((hit) => hit.body.id)).toEqual(ids);
    // 50 ms apart: 11 gaps take at least 550 ms (a generous bound for a loaded machine: 400).
    const span = target.hits[11]!.at - target.hits[0]!.at;
    expect(span).toBeGreaterThanOrEqual(400);
    // Never a burst: any 250 ms holds 5 sends at this pace; 8 leaves room for a late timer on a loaded machine.
    const busiest = Math.max(
      ...target.hits.map((hit) => target.hits.filter((h) => h.at >= hit.at && h.at < hit.at + 250).length),
    );
    expect(busiest).toBeLessThanOrEqual(8);
    const { rows } = await service.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM admin_requests WHERE account_id = $1',
      [accountId],
    );
    expect(rows[0]!.n).toBe(11);
  });

  it('when the worker stops in the middle of a retry and another starts, then the rest is sent and none twice', async () => {
    const accountId = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(200).end());
    const endpoint = await endpointOf(accountId, target.url);
    const ids = await loggedEvents(accountId, endpoint.id, 20, 'failed');
    const start = await call('POST', retries(accountId, endpoint.id), lastHour());
    await waitFor(() => target.hits.length >= 5, 10_000, 5, 'the first sends');
    await service.stopDispatcher();
    const atStop = target.hits.length;
    expect(atStop).toBeLessThan(20);
    const midway = await call('GET', `/internal/accounts/${accountId}/webhook-retries/${start.body.id}`);
    expect(midway.body.state).toBe('running');
    await service.startDispatcher();
    const done = await finished(accountId, start.body.id);
    expect(done).toMatchObject({ total: 20, done: 20, failed: 0 });
    expect([...countBy(target.hits)].sort()).toEqual(ids.map((id) => [id, 1]).sort());
  });

  it('when the circuit is open, then the retry waits for its end and then goes at its pace; a receiver still down fails them once each', async () => {
    const accountId = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(500).end());
    const endpoint = await endpointOf(accountId, target.url);
    await loggedEvents(accountId, endpoint.id, 3, 'failed');
    const openUntil = Date.now() + 1500;
    await service.pool.query(`UPDATE endpoints SET circuit_open_until = $2, circuit_opened_at = now() WHERE id = $1`, [
      endpoint.id,
      new Date(openUntil),
    ]);
    const start = await call('POST', retries(accountId, endpoint.id), lastHour());
    const done = await finished(accountId, start.body.id);
    expect(done).toMatchObject({ total: 3, done: 3, failed: 3 });
    expect(target.hits).toHaveLength(3);
    for (const hit of target.hits) expect(hit.at).toBeGreaterThanOrEqual(openUntil - 50);
    const log = await call('GET', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/deliveries?status=failed`);
    // The 3 seeded failures and one attempt per retried event: no circuit skip was logged for the retry.
    expect(log.body.data).toHaveLength(6);
    expect(log.body.data.some((d: { error: string }) => d.error === 'circuit_breaker_open')).toBe(false);
  });

  it('when the range or the endpoint is not one it can retry, then it answers 422, 404 or 409 and sends nothing', async () => {
    const accountId = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(200).end());
    const endpoint = await endpointOf(accountId, target.url);
    await loggedEvents(accountId, endpoint.id, 1, 'failed');
    const now = Date.now();
    const backwards = await call('POST', retries(accountId, endpoint.id), { from: iso(now), to: iso(now - 1000) });
    expect(backwards.status).toBe(422);
    expect(backwards.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'to' }] });
    const tooLong = await call('POST', retries(accountId, endpoint.id), { from: iso(now - 32 * 86_400_000), to: iso(now) });
    expect(tooLong.status).toBe(422);
    expect((await call('POST', retries(accountId, endpoint.id), { from: 'ayer', to: iso(now) })).status).toBe(422);
    const stranger = newId('account');
    const theirs = await Promise.all([
      call('POST', retries(stranger, endpoint.id), lastHour()),
      call('GET', retries(stranger, endpoint.id)),
      call('GET', `/internal/accounts/${stranger}/webhook-endpoints/${endpoint.id}/health`),
    ]);
    expect(theirs.map((answer) => answer.status)).toEqual([404, 404, 404]);
    await call('PUT', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}`, { status: 'disabled' });
    const disabled = await call('POST', retries(accountId, endpoint.id), lastHour());
    expect(disabled.status).toBe(409);
    expect((await call('GET', retries(accountId, endpoint.id))).body.data).toEqual([]);
    const job = await call('GET', `/internal/accounts/${stranger}/webhook-retries/${newId('webhookRetry')}`);
    expect(job.status).toBe(404);
    expect(target.hits).toHaveLength(0);
  });
});

describe("an endpoint's health", () => {
  it('when attempts are logged over the last days, then each window counts them, its success rate and p95, circuit skips left out', async () => {
    const accountId = newId('account');
    const endpoint = await endpointOf(accountId, 'https://receiver.example/hook');
    const hour = 3_600_000;
    const thisHour = Math.floor(Date.now() / hour) * hour;
    const rows: [number, string, number | null, number | null, string | null][] = [];
    // This hour: 18 successes at 100 ms, 1 answered failure at 900 ms, 1 timeout (no answer), 1 circuit skip.
    for (let n = 0; n < 18; n += 1) rows.push([thisHour + 1000, 'succeeded', 200, 100, null]);
    rows.push([thisHour + 1000, 'failed', 500, 900, 'http_status']);
    rows.push([thisHour + 1000, 'failed', null, 10_000, 'timeout']);
    rows.push([thisHour + 1000, 'failed', null, null, 'circuit_breaker_open']);
    // Three hours ago: 2 successes at 50 ms. Three days ago: 4 failures at 2 s. Ten days ago: out of both windows.
    rows.push([thisHour - 3 * hour, 'succeeded', 200, 50, null], [thisHour - 3 * hour, 'succeeded', 200, 50, null]);
    for (let n = 0; n < 4; n += 1) rows.push([thisHour - 72 * hour, 'failed', 503, 2000, 'http_status']);
    rows.push([thisHour - 240 * hour, 'succeeded', 200, 10, null]);
    for (const [at, status, http, duration, error] of rows) {
      await service.pool.query(
        `INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status, http_status,
                                 duration_ms, error, created_at)
         VALUES ($1, $2, $3, 'msg_seeded', 'evt_seeded', 'verification_session.approved', 1, $4, $5, $6, $7, $8)`,
        [newId('webhookDelivery'), accountId, endpoint.id, status, http, duration, error, new Date(at)],
      );
    }
    const route = `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/health`;
    const health = await call('GET', route);
    expect(health.status).toBe(200);
    const { last_24h: day, last_7d: week } = health.body;
    expect(day).toMatchObject({ attempts: 22, succeeded: 20 });
    expect(day.success_rate).toBeCloseTo(20 / 22);
    // 21 answered (50, 50, 18 × 100, 900): the 20th is at 100 ms (to within the histogram's 10%).
    expect(day.p95_ms).toBeGreaterThanOrEqual(100);
    expect(day.p95_ms).toBeLessThanOrEqual(110);
    expect(day.buckets).toHaveLength(24);
    expect(day.buckets[23]).toMatchObject({ start: iso(thisHour), attempts: 20, succeeded: 18 });
    // This hour's 19 answered: the 19th is the one at 900 ms.
    expect(day.buckets[23].p95_ms).toBeGreaterThanOrEqual(900);
    expect(day.buckets[23].p95_ms).toBeLessThanOrEqual(990);
    expect(day.buckets[20]).toMatchObject({ start: iso(thisHour - 3 * hour), attempts: 2, succeeded: 2, success_rate: 1 });
    expect(day.buckets[20].p95_ms).toBeGreaterThanOrEqual(50);
    expect(day.buckets[20].p95_ms).toBeLessThanOrEqual(55);
    expect(day.buckets[0]).toMatchObject({ attempts: 0, success_rate: null, p95_ms: null });
    expect(week).toMatchObject({ attempts: 26, succeeded: 20 });
    expect(week.buckets).toHaveLength(7);
    expect(week.buckets.reduce((sum: number, bucket: { attempts: number }) => sum + bucket.attempts, 0)).toBe(26);
    // Days start at Argentina's midnight (03:00 UTC).
    for (const bucket of week.buckets) expect(bucket.start).toMatch(/T03:00:00\.000Z$/);
    // The closed hours were rolled up once; a second read gives the same figures from them.
    const { rows: rolled } = await service.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_hours WHERE endpoint_id = $1',
      [endpoint.id],
    );
    expect(rolled[0]!.n).toBeGreaterThanOrEqual(144);
    const again = await call('GET', route);
    expect(again.body.last_7d).toEqual(week);
  });
});
