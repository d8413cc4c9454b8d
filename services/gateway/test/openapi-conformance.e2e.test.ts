import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INTERNAL_HEADERS, PUBLIC_ROUTES } from '@idv/contracts';
import {
  api,
  buildAccount,
  buildKey,
  buildTenant,
  openApiConformance,
  testEnv,
  waitFor,
  type ApiOptions,
  type ApiResponse,
  type ObservedDelivery,
} from '@idv/testkit';

/**
 * Each operation's main success and error statuses through the real gateway, every response checked
 * against the OpenAPI document (status, media type, body, required headers), and real webhook
 * deliveries checked against its `webhooks` section.
 */

const UNKNOWN = {
  session: 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6',
  endpoint: 'whep_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6',
  delivery: 'whd_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6',
};

/** Statuses each operation must have been seen answering in this file. */
const EXERCISED: Record<string, number[]> = {
  createVerificationSession: [201, 400, 402, 403, 409, 413, 415, 422],
  listVerificationSessions: [200, 403, 422, 429],
  getVerificationSession: [200, 404, 422],
  cancelVerificationSession: [200, 404, 409],
  getQrSvg: [200, 404, 410],
  getQrPng: [200],
  getUsage: [200, 422],
  exportUsageSessionsCsv: [200],
  createWebhookEndpoint: [201, 422],
  listWebhookEndpoints: [200],
  getWebhookEndpoint: [200, 404],
  updateWebhookEndpoint: [200, 404],
  deleteWebhookEndpoint: [204, 404],
  rotateWebhookEndpointSecret: [200],
  testWebhookEndpoint: [202, 429],
  listWebhookDeliveries: [200, 404],
  getWebhookDelivery: [200, 404],
  redeliverWebhookDelivery: [202, 404],
  getOpenApiDocument: [200],
};

const seen = new Map<string, Set<number>>();

/** Checks a response against the document and records which operation answered which status. */
function conforms(method: string, path: string, response: ApiResponse): string[] {
  const { operation, problems } = openApiConformance().checkResponse({
    method,
    path,
    status: response.status,
    headers: response.headers,
    text: response.text,
  });
  if (operation) {
    const statuses = seen.get(operation) ?? new Set<number>();
    statuses.add(response.status);
    seen.set(operation, statuses);
  }
  return problems;
}

/** One call with the contract check on (api() throws on a mismatch), expecting a status. */
async function call(method: string, path: string, options: ApiOptions, expected: number): Promise<ApiResponse> {
  const response = await api(method, path, { ...options, contract: true });
  const problems = conforms(method, path, response);
  expect({ method, path, status: response.status, problems }).toEqual({ method, path, status: expected, problems: [] });
  return response;
}

/** A webhook receiver on loopback that keeps every delivery as received. */
async function startReceiver(): Promise<{ server: Server; url: string; deliveries: ObservedDelivery[] }> {
  const deliveries: ObservedDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, deliveries };
}

let tenant: Awaited<ReturnType<typeof buildTenant>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  tenant = await buildTenant();
  receiver = await startReceiver();
});

afterAll(async () => {
  await new Promise((resolve) => receiver.server.close(resolve));
});

describe('OpenAPI conformance of the real gateway', () => {
  test('when sessions are created, listed, read and canceled, then every answer matches the document', async () => {
    const key = tenant.testKey;
    const body = { project_id: tenant.project.id, external_ref: 'conformance' };
    const headers = { 'idempotency-key': `conformance-${Date.now()}` };
    const created = await call('POST', '/v1/verification-sessions', { key, body, headers }, 201);
    const replay = await call('POST', '/v1/verification-sessions', { key, body, headers }, 201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(created.headers['cache-control']).toBe('no-store');
    await call('POST', '/v1/verification-sessions', { key, body: { ...body, external_ref: 'other' }, headers }, 409);
    await call('POST', '/v1/verification-sessions', { key, body: { project_id: 'nope' } }, 422);
    await call(
      'POST',
      '/v1/verification-sessions',
      { key, rawBody: '{"project_id":', headers: { 'content-type': 'application/json' } },
      400,
    );
    await call(
      'POST',
      '/v1/verification-sessions',
      { key, rawBody: 'project_id=x', headers: { 'content-type': 'text/plain' } },
      415,
    );
    await call(
      'POST',
      '/v1/verification-sessions',
      { key, rawBody: JSON.stringify({ project_id: 'x'.repeat(300 * 1024) }), headers: { 'content-type': 'application/json' } },
      413,
    );
    await call('POST', '/v1/verification-sessions', { key: tenant.liveKey, body }, 402);

    const id = created.body.id as string;
    await call('GET', '/v1/verification-sessions?limit=2', { key }, 200);
    await call('GET', '/v1/verification-sessions?cursor=not-a-cursor', { key }, 422);
    await call('GET', `/v1/verification-sessions/${id}`, { key }, 200);
    await call('GET', `/v1/verification-sessions/${UNKNOWN.session}`, { key }, 404);
    await call('GET', '/v1/verification-sessions/not-an-id', { key }, 422);
    await call('POST', `/v1/verification-sessions/${id}/cancel`, { key }, 200);
    await call('POST', `/v1/verification-sessions/${id}/cancel`, { key }, 409);
    await call('POST', `/v1/verification-sessions/${UNKNOWN.session}/cancel`, { key }, 404);
  });

  test('when keys are missing, refused, inactive or short of a scope, then the 403s match the document', async () => {
    await call('GET', '/v1/verification-sessions', {}, 403);
    await call('GET', '/v1/verification-sessions', { key: 'sk_test_unknown' }, 403);
    const suspended = await buildAccount({ status: 'suspended' });
    const inactive = await call('GET', '/v1/verification-sessions', { key: (await buildKey(suspended.id)).secret }, 403);
    expect(inactive.body.code).toBe('account_inactive');
    const readOnly = await buildKey(tenant.account.id, 'test', ['sessions:read']);
    const refused = await call(
      'POST',
      '/v1/verification-sessions',
      { key: readOnly.secret, body: { project_id: tenant.project.id } },
      403,
    );
    expect(refused.body.code).toBe('insufficient_scope');
  });

  test('when a QR is fetched before and after its link is redeemed, then images, 404 and 410 match the document', async () => {
    const created = await call(
      'POST',
      '/v1/verification-sessions',
      { key: tenant.testKey, body: { project_id: tenant.project.id } },
      201,
    );
    const token = /\/l\/(lt_[A-Za-z0-9_-]+)$/.exec(created.body.url as string)![1]!;
    await call('GET', `/v1/qr/${token}.svg`, {}, 200);
    await call('GET', `/v1/qr/${token}.png`, {}, 200);
    await call('GET', '/v1/qr/lt_unknownunknownunknown.svg', {}, 404);
    const env = testEnv();
    const redeemed = await api('POST', `/internal/links/${token}/redeem`, {
      baseUrl: env.sessionsUrl,
      headers: { [INTERNAL_HEADERS.token]: env.internalToken },
    });
    expect(redeemed.status).toBe(200);
    await call('GET', `/v1/qr/${token}.svg`, {}, 410);
  });

  test('when usage is read, then the JSON, the CSV export and a bad month match the document', async () => {
    const month = new Date().toISOString().slice(0, 7);
    await call('GET', `/v1/usage?month=${month}`, { key: tenant.testKey }, 200);
    await call('GET', '/v1/usage?month=2026-13', { key: tenant.testKey }, 422);
    const csv = await call('GET', `/v1/usage/sessions.csv?month=${month}`, { key: tenant.testKey }, 200);
    expect(csv.headers['content-disposition']).toContain(`sessions-${month}.csv`);
  });

  test('when webhook endpoints and deliveries are managed, then every answer and every delivery match the document', async () => {
    const key = tenant.testKey;
    const events = ['verification_session.canceled', 'test'];
    const created = await call('POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, events } }, 201);
    expect(created.headers['cache-control']).toBe('no-store');
    const endpointId = created.body.id as string;
    await call('POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, events: ['nope'] } }, 422);
    await call('GET', '/v1/webhook-endpoints', { key }, 200);
    await call('GET', `/v1/webhook-endpoints/${endpointId}`, { key }, 200);
    await call('GET', `/v1/webhook-endpoints/${UNKNOWN.endpoint}`, { key }, 404);
    await call('PUT', `/v1/webhook-endpoints/${endpointId}`, { key, body: { description: 'conformance' } }, 200);
    await call('PUT', `/v1/webhook-endpoints/${UNKNOWN.endpoint}`, { key, body: { description: 'x' } }, 404);
    const rotated = await call('POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, { key }, 200);
    expect(rotated.headers['cache-control']).toBe('no-store');

    await call('POST', `/v1/webhook-endpoints/${endpointId}/test`, { key }, 202);
    const session = await call('POST', '/v1/verification-sessions', { key, body: { project_id: tenant.project.id } }, 201);
    await call('POST', `/v1/verification-sessions/${session.body.id}/cancel`, { key }, 200);
    await waitFor(
      () => new Set(receiver.deliveries.map((delivery) => delivery.headers['x-service-event-type'])).size >= 2 || undefined,
      20_000,
      50,
      'both event types',
    );
    const types = new Set(receiver.deliveries.map((delivery) => delivery.headers['x-service-event-type']));
    expect([...types].sort()).toEqual(['test', 'verification_session.canceled']);
    for (const delivery of receiver.deliveries) {
      expect(openApiConformance().checkDelivery(delivery)).toEqual({ operation: expect.any(String), problems: [] });
    }
    // During the rotation both secrets sign.
    expect(String(receiver.deliveries[0]!.headers['x-service-signature']).match(/v1=/g)).toHaveLength(2);

    const log = await waitFor(
      async () => {
        const page = await call('GET', `/v1/webhook-deliveries?endpoint=${endpointId}`, { key }, 200);
        return page.body.data.length >= 2 ? page : undefined;
      },
      20_000,
      100,
      'two logged deliveries',
    );
    await call('GET', `/v1/webhook-deliveries?endpoint=${UNKNOWN.endpoint}`, { key }, 404);
    const deliveryId = log.body.data[0].id as string;
    await call('GET', `/v1/webhook-deliveries/${deliveryId}`, { key }, 200);
    await call('GET', `/v1/webhook-deliveries/${UNKNOWN.delivery}`, { key }, 404);
    await call('POST', `/v1/webhook-deliveries/${deliveryId}/redeliver`, { key }, 202);
    await call('POST', `/v1/webhook-deliveries/${UNKNOWN.delivery}/redeliver`, { key }, 404);
    await call('DELETE', `/v1/webhook-endpoints/${endpointId}`, { key }, 204);
    await call('DELETE', `/v1/webhook-endpoints/${endpointId}`, { key }, 404);
  });

  test('when test and redeliver exceed 10 per minute, then the 429 matches the document', async () => {
    const own = await buildTenant({ modes: ['test'] });
    const created = await call(
      'POST',
      '/v1/webhook-endpoints',
      { key: own.testKey, body: { url: receiver.url, events: ['test'] } },
      201,
    );
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await api('POST', `/v1/webhook-endpoints/${created.body.id}/test`, { key: own.testKey })).status);
    }
    expect(statuses.slice(0, 10).every((status) => status === 202)).toBe(true);
    const refused = await call('POST', `/v1/webhook-endpoints/${created.body.id}/test`, { key: own.testKey }, 429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
  });

  test('when the account exceeds its burst, then the gateway 429 matches the document', async () => {
    const own = await buildTenant({ modes: ['test'] });
    const path = '/v1/verification-sessions';
    // Bursts of 50 (the bucket holds 40 and refills 20/s) until one is refused: on a loaded machine a
    // single burst can spread over long enough for the refill to cover it. Bounded: 6 bursts at most.
    let refused: Awaited<ReturnType<typeof api>> | undefined;
    for (let burst = 0; burst < 6 && !refused; burst++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => api('GET', path, { key: own.testKey, contract: true })),
      );
      refused = responses.find((response) => response.status === 429);
    }
    expect(refused).toBeDefined();
    expect(conforms('GET', path, refused!)).toEqual([]);
    expect(refused!.headers['retry-after']).toMatch(/^\d+$/);
  });

  test('when a path or a method is unknown, then the 404 or 405 problem matches the document', async () => {
    await call('GET', '/v1/nothing-here', {}, 404);
    const wrongMethod = await call('PATCH', '/v1/verification-sessions', { key: tenant.testKey }, 405);
    expect(wrongMethod.headers.allow!.split(', ').sort()).toEqual(['GET', 'POST']);
    await call('GET', '/v1/openapi.json', {}, 200);
  });

  test('when the file is done, then every operation was seen answering its main success and error statuses', () => {
    expect(Object.keys(EXERCISED).sort()).toEqual(PUBLIC_ROUTES.map((route) => route.operationId).sort());
    for (const [operation, statuses] of Object.entries(EXERCISED)) {
      const answered = [...(seen.get(operation) ?? [])].sort((a, b) => a - b);
      expect({ operation, answered: statuses.filter((status) => answered.includes(status)) }).toEqual({
        operation,
        answered: statuses,
      });
    }
  });
});
