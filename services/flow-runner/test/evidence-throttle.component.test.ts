import { newArtefactId, newId } from '@idv/contracts';
import { evidenceRoute } from './evidence-route';

/**
 * The per-address throttle of evidence downloads, through the route in-process over the real PostgreSQL
 * and Redis. Limits are small (burst 4, one more every 20 s) so a bounded burst crosses them whatever the
 * machine load.
 */
const BURST = 4;
const route = evidenceRoute('evidence_throttle', { perSecond: 0.05, burst: BURST });

const auditedOutcomes = async (sessionId: string) =>
  (
    await route.pool.query<{ outcome: string; client_address: string; user_agent: string }>(
      'SELECT outcome, client_address, user_agent FROM evidence_downloads WHERE session_id = $1 ORDER BY id',
      [sessionId],
    )
  ).rows;

describe('evidence download throttle', () => {
  test('when one address downloads past its burst, then it gets 429 with Retry-After and a problem, and other addresses are served', async () => {
    const { path } = await route.captured('front');
    const address = '203.0.113.41';

    const answers = [];
    for (let i = 0; i < BURST + 3; i++) answers.push(await route.download(path, address));

    expect(answers.map((a) => a.status)).toEqual([...Array(BURST).fill(200), 429, 429, 429]);
    for (const refused of answers.slice(BURST)) {
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.headers['cache-control']).toBe('no-store');
      const problem = JSON.parse(refused.body.toString('utf8')) as { code: string; status: number };
      expect(problem).toMatchObject({ code: 'rate_limited', status: 429 });
    }
    // Another address has its own bucket.
    expect((await route.download(path, '203.0.113.42')).status).toBe(200);
  });

  test('when a burst goes past the throttle, then only the downloads served are audited and the refusals are counted in the metrics', async () => {
    const { sessionId, path } = await route.captured('front');
    const address = '203.0.113.61';
    const refusalsBefore = await route.counted('throttled_requests_total', { kind: 'evidence_download' });
    const refused = 40;

    const statuses = [];
    for (let i = 0; i < BURST + refused; i++) statuses.push((await route.download(path, address)).status);

    expect(statuses).toEqual([...Array(BURST).fill(200), ...Array(refused).fill(429)]);
    const rows = await auditedOutcomes(sessionId);
    expect(rows.map((r) => r.outcome)).toEqual(Array(BURST).fill('served'));
    for (const row of rows) expect(row).toMatchObject({ client_address: address, user_agent: 'evidence-route-test/1.0' });
    expect((await route.counted('throttled_requests_total', { kind: 'evidence_download' })) - refusalsBefore).toBe(refused);
  });

  test('when a throttled address asks for evidence that does not exist, then it is 429 too and nothing is audited', async () => {
    const address = '203.0.113.51';
    const { path } = await route.captured('front');
    for (let i = 0; i < BURST; i++) expect((await route.download(path, address)).status).toBe(200);
    const unknownSession = newId('session');

    const probes = [
      await route.download(`/evidence/${unknownSession}/${newArtefactId()}?expires=1&signature=x`, address),
      await route.download('/evidence/not-an-id/nor-this', address),
    ];

    for (const probe of probes) expect(probe.status).toBe(429);
    expect(await auditedOutcomes(unknownSession)).toHaveLength(0);
  });
});
