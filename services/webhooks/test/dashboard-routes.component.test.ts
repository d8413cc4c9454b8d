import { eventId, newId, type AccountId } from '@idv/contracts';
import { withTransaction } from '@idv/kit';
import { receiversOfThisFile, waitFor } from '@idv/testkit';
import { fanOut } from '../src/adapters/messages.repository';
import { inProcessWebhooks } from './support/in-process';
import { verifySignature } from './support/verify';

/**
 * The webhooks service's internal routes for the dashboard, in this process over a private database of the
 * test's own, a real broker connection and its own dispatcher delivering to real receivers on 127.0.0.1:
 * what each attempt sent and received is kept, and every route answers for its account only.
 */
const service = inProcessWebhooks('dashboard', { timeScale: 0.05 });
const { call, endpointOf } = service;
const receiver = receiversOfThisFile();

/** The endpoint's log once it holds `count` attempts. */
async function logOf(accountId: AccountId, endpointId: string, count = 1, query = '') {
  return waitFor(
    async () => {
      const page = await call('GET', `/internal/accounts/${accountId}/webhook-endpoints/${endpointId}/deliveries${query}`);
      return page.status === 200 && page.body.data.length >= count ? page.body : undefined;
    },
    15_000,
    50,
    `${count} attempt(s) logged`,
  );
}

describe("the dashboard's delivery log", () => {
  it('when a receiver answers a long body, then the attempt keeps the request as sent and the first 4 KB of the response', async () => {
    const accountId = newId('account');
    const long = `a${'ñ'.repeat(5000)}`; // 10,001 bytes; the 4,096th byte is the second half of a ñ
    const target = await receiver((_hit, res) =>
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'x-receiver-trace': 'trace-41' }).end(long),
    );
    const endpoint = await endpointOf(accountId, target.url);
    expect((await call('POST', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/test`)).status).toBe(200);

    const log = await logOf(accountId, endpoint.id);
    expect(log.data[0]).toMatchObject({ event_type: 'test', status: 'failed', http_status: 500, error: 'http_status' });
    const attempt = await call('GET', `/internal/accounts/${accountId}/webhook-deliveries/${log.data[0].id}`);
    expect(attempt.status).toBe(200);
    const hit = target.hits[0]!;
    expect(attempt.body.request.body).toBe(hit.raw);
    expect(attempt.body.request.body_as_sent).toBe(true);
    expect(attempt.body.request.headers['x-service-signature']).toBe(hit.headers['x-service-signature']);
    expect(verifySignature(attempt.body.request.headers['x-service-signature'], attempt.body.request.body, endpoint.secret)).toBe(
      true,
    );
    expect(attempt.body.request.headers['user-agent']).toBe('idv-webhooks/0.0.0-test');
    expect(attempt.body.response.headers['x-receiver-trace']).toBe('trace-41');
    expect(attempt.body.response.body).toBe(`a${'ñ'.repeat(2047)}`);
    expect(attempt.body.response.body_bytes).toBe(10_001);
  });

  it('when an automatic delivery succeeds, then its exchange is kept too, a NUL in the body does not break it, and the session filter finds it', async () => {
    const accountId = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(200, { 'x-ok': 'yes' }).end('ok\u0000done'));
    const endpoint = await endpointOf(accountId, target.url);
    const sessionId = newId('session');
    const other = newId('session');
    for (const session of [sessionId, other]) {
      await fanOut(service.pool, accountId, {
        id: eventId(accountId, session, 'verification_session.approved'),
        type: 'verification_session.approved',
        data: { id: session, object: 'verification_session', status: 'approved', result: { outcome: 'approved' } },
        options: {},
        occurredAt: new Date().toISOString(),
      });
    }
    service.dispatcher!.wake();
    await logOf(accountId, endpoint.id, 2);
    const filtered = await logOf(accountId, endpoint.id, 1, `?session_id=${sessionId}&status=succeeded`);
    expect(filtered.data).toHaveLength(1);
    expect(filtered.data[0].event_id).toBe(eventId(accountId, sessionId, 'verification_session.approved'));
    const attempt = await call('GET', `/internal/accounts/${accountId}/webhook-deliveries/${filtered.data[0].id}`);
    expect(attempt.body.response).toEqual({
      headers: expect.objectContaining({ 'x-ok': 'yes' }),
      body: 'ok\uFFFDdone',
      body_bytes: 7,
    });
    const hit = target.hits.find((h) => h.body.data.object.id === sessionId)!;
    expect(attempt.body.request.body).toBe(hit.raw);

    // A session's timeline: its attempts on every endpoint, and none for another account naming it.
    const timeline = await call('GET', `/internal/accounts/${accountId}/sessions/${sessionId}/webhook-deliveries`);
    expect(timeline.status).toBe(200);
    expect(timeline.body).toMatchObject({ object: 'list', has_more: false });
    expect(timeline.body.data.map((delivery: { id: string }) => delivery.id)).toEqual([filtered.data[0].id]);
    const stranger = await call('GET', `/internal/accounts/${newId('account')}/sessions/${sessionId}/webhook-deliveries`);
    expect(stranger.body.data).toEqual([]);

    const none = await call(
      'GET',
      `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/deliveries?status=failed&event_type=verification_session.approved`,
    );
    expect(none.body.data).toEqual([]);
    const future = await call(
      'GET',
      `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/deliveries?from=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    expect(future.body.data).toEqual([]);
    const bad = await call('GET', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/deliveries?status=maybe`);
    expect(bad.status).toBe(422);
  });

  it('when the log is longer than a page, then the cursor pages it without repeating an attempt', async () => {
    const accountId = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(200).end());
    const endpoint = await endpointOf(accountId, target.url);
    for (let n = 0; n < 5; n += 1) {
      const session = newId('session');
      await fanOut(service.pool, accountId, {
        id: eventId(accountId, session, 'verification_session.approved'),
        type: 'verification_session.approved',
        data: { id: session, object: 'verification_session' },
        options: {},
        occurredAt: new Date().toISOString(),
      });
    }
    service.dispatcher!.wake();
    await logOf(accountId, endpoint.id, 5);
    const first = await call('GET', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/deliveries?limit=3`);
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await call(
      'GET',
      `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/deliveries?limit=3&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.has_more).toBe(false);
    const ids = [...first.body.data, ...second.body.data].map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(5);
  });
});

describe("the dashboard's endpoint routes", () => {
  it('when the secret is rotated, then the answer has the new secret once and the end of the overlap, and both secrets sign until then', async () => {
    const accountId = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(200).end());
    const endpoint = await endpointOf(accountId, target.url);
    const rotated = await call('POST', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    const overlapEnd = Date.parse(rotated.body.state.previous_secret_expires_at);
    expect(overlapEnd - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(overlapEnd - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const fetched = await call('GET', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}`);
    expect(fetched.body.secret).toBeUndefined();
    expect(fetched.body.state.previous_secret_expires_at).toBe(rotated.body.state.previous_secret_expires_at);

    await call('POST', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}/test`);
    const hit = await waitFor(() => target.hits[0], 15_000, 50, 'test event');
    const signature = hit.headers['x-service-signature'] as string;
    expect(signature.split(',').filter((part) => part.startsWith('v1='))).toHaveLength(2);
    expect(verifySignature(signature, hit.raw, endpoint.secret)).toBe(true);
    expect(verifySignature(signature, hit.raw, rotated.body.secret)).toBe(true);
  });

  it('when the circuit is open, past its period, or closed, then the endpoint says so with what waits and when it tries next', async () => {
    const accountId = newId('account');
    const endpoint = await endpointOf(accountId, 'https://receiver.example/hook');
    const openUntil = new Date(Date.now() + 10 * 60_000);
    const nextTry = new Date(Date.now() + 5 * 60_000);
    await service.pool.query(`UPDATE endpoints SET circuit_open_until = $2 WHERE id = $1`, [endpoint.id, openUntil]);
    const session = newId('session');
    // Queued and pushed to later in one transaction: this file's dispatcher never sees it due.
    await withTransaction(service.pool, async (tx) => {
      await fanOut(tx, accountId, {
        id: eventId(accountId, session, 'verification_session.approved'),
        type: 'verification_session.approved',
        data: { id: session },
        options: {},
        occurredAt: new Date().toISOString(),
      });
      await tx.query(`UPDATE messages SET next_attempt_at = $2 WHERE endpoint_id = $1`, [endpoint.id, nextTry]);
    });
    const open = await call('GET', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}`);
    expect(open.body.state).toEqual({
      circuit: { state: 'open', open_until: openUntil.toISOString(), consecutive_failures: 0 },
      waiting: 1,
      next_attempt_at: nextTry.toISOString(),
      previous_secret_expires_at: null,
    });
    await service.pool.query(`UPDATE endpoints SET circuit_open_until = now() - interval '1 second' WHERE id = $1`, [
      endpoint.id,
    ]);
    const listed = await call('GET', `/internal/accounts/${accountId}/webhook-endpoints`);
    expect(
      listed.body.data.map((e: { id: string; state: { circuit: { state: string } } }) => [e.id, e.state.circuit.state]),
    ).toEqual([[endpoint.id, 'half_open']]);
    await service.pool.query(`UPDATE endpoints SET circuit_open_until = NULL WHERE id = $1`, [endpoint.id]);
    expect((await call('GET', `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}`)).body.state.circuit.state).toBe(
      'closed',
    );
  });

  it('when the url is one the API refuses, then 422 names the field, as the public route does', async () => {
    const answer = await call('POST', `/internal/accounts/${newId('account')}/webhook-endpoints`, {
      url: 'https://169.254.169.254/hook',
      events: ['verification_session.approved'],
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'url' }] });
  });

  it('when another account names an endpoint or a delivery, then every route answers 404 and changes nothing', async () => {
    const owner = newId('account');
    const stranger = newId('account');
    const target = await receiver((_hit, res) => res.writeHead(200).end());
    const endpoint = await endpointOf(owner, target.url);
    await call('POST', `/internal/accounts/${owner}/webhook-endpoints/${endpoint.id}/test`);
    const [delivery] = (await logOf(owner, endpoint.id)).data;
    const theirs = `/internal/accounts/${stranger}/webhook-endpoints/${endpoint.id}`;
    const answers = await Promise.all([
      call('GET', theirs),
      call('PUT', theirs, { description: 'hijacked', status: 'disabled' }),
      call('POST', `${theirs}/rotate-secret`),
      call('POST', `${theirs}/test`),
      call('GET', `${theirs}/deliveries`),
      call('GET', `/internal/accounts/${stranger}/webhook-deliveries/${delivery.id}`),
      call('POST', `/internal/accounts/${stranger}/webhook-deliveries/${delivery.id}/redeliver`),
      call('DELETE', theirs),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404]);
    expect((await call('GET', `/internal/accounts/${stranger}/webhook-endpoints`)).body.data).toEqual([]);
    const mine = await call('GET', `/internal/accounts/${owner}/webhook-endpoints/${endpoint.id}`);
    expect(mine.body).toMatchObject({ description: 'Prueba', status: 'active' });
    expect(mine.body.state.previous_secret_expires_at).toBeNull();
    expect(target.hits).toHaveLength(1);
  });

  it('when the owner edits, disables and deletes an endpoint, then each answer shows it and a deleted one is gone', async () => {
    const accountId = newId('account');
    const endpoint = await endpointOf(accountId, 'https://receiver.example/a');
    const route = `/internal/accounts/${accountId}/webhook-endpoints/${endpoint.id}`;
    const edited = await call('PUT', route, {
      url: 'https://receiver.example/b',
      description: 'Nueva',
      events: ['verification_session.rejected', 'verification_session.approved'],
      status: 'disabled',
    });
    expect(edited.body).toMatchObject({
      url: 'https://receiver.example/b',
      description: 'Nueva',
      events: ['verification_session.rejected', 'verification_session.approved'],
      status: 'disabled',
    });
    expect((await call('DELETE', route)).body).toEqual({ id: endpoint.id, deleted: true });
    expect((await call('GET', route)).status).toBe(404);
    expect((await call('DELETE', route)).status).toBe(404);
    // Its log still reads (deleted endpoints keep their history).
    expect((await call('GET', `${route}/deliveries`)).status).toBe(200);
  });
});
