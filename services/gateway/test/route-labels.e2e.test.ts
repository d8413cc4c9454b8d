import { INTERNAL_ROUTES, PUBLIC_ROUTES, type PublicRoute, type Scope } from '@idv/contracts';
import { api, behaviours, buildKey, buildTenant, receiversOfThisFile, testEnv, waitFor, type ApiOptions } from '@idv/testkit';

/**
 * Every public route of the contract, answered with a success and with the errors it can give, through
 * the stack's gateway and services: each request must be counted in `http_request_duration_seconds`
 * under the contract's template, at the gateway and (when the request reaches it) at the service
 * behind it, whatever the status; and no service may count a request under any other form of a route.
 */

const receiver = receiversOfThisFile(() => behaviours.ok());
const UNKNOWN_ULID = '01JD3Z8Q5X8R0VQ1T7W9Y2K4M6';
const PREFIX: [string, string][] = [
  ['/v1/verification-sessions/', 'vs_'],
  ['/v1/webhook-endpoints/', 'whep_'],
  ['/v1/webhook-deliveries/', 'whd_'],
];
const HEALTH = ['/healthz', '/readyz', '/metrics'];
type Upstream = 'gateway' | 'sessions' | 'webhooks';

interface Sent {
  route: PublicRoute;
  status: number;
  /** Through the gateway (counted there and, unless it answered itself, at the service), answered by the gateway, or sent to the service alone. */
  via: 'gateway' | 'service' | 'gateway-alone';
}

interface Series {
  labels: Record<string, string>;
  value: number;
}

function parseCounts(text: string): Series[] {
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('http_request_duration_seconds_count{')) continue;
    const close = line.lastIndexOf('}');
    const labels: Record<string, string> = {};
    for (const [, name, value] of line.slice(line.indexOf('{') + 1, close).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name!] = value!.replace(/\\(.)/g, '$1');
    }
    series.push({ labels, value: Number(line.slice(close + 1).trim()) });
  }
  return series;
}

function urlOf(service: Upstream): string {
  const env = testEnv();
  return { gateway: env.gatewayUrl, sessions: env.sessionsUrl, webhooks: env.webhooksUrl }[service];
}

async function scrape(service: Upstream): Promise<Series[]> {
  const response = await fetch(`${urlOf(service)}/metrics`);
  expect(response.status).toBe(200);
  return parseCounts(await response.text());
}

const key = (method: string, route: string, status: number) => `${method} ${route} ${status}`;

function countsBy(series: Series[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { labels, value } of series) {
    const id = key(labels.method!, labels.route!, Number(labels.status));
    counts.set(id, (counts.get(id) ?? 0) + value);
  }
  return counts;
}

function routeOf(operationId: string): PublicRoute {
  const found = PUBLIC_ROUTES.find((route) => route.operationId === operationId);
  if (!found) throw new Error(`no route ${operationId}`);
  return found;
}

/** The path of a route with its parameters filled in. */
function pathOf(route: PublicRoute, values: Record<string, string> = {}, query = ''): string {
  const prefix = PREFIX.find(([start]) => route.path.startsWith(start))?.[1] ?? '';
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `${prefix}${UNKNOWN_ULID}`) + query;
}

/** A scope that does not open the route (403 at the gateway). */
function otherScope(route: PublicRoute): Scope {
  return route.scope === 'usage:read' ? 'sessions:read' : 'usage:read';
}

describe('route labels', () => {
  it('when every public route answers a success and its errors, then gateway and service count each under the contract template', async () => {
    const tenant = await buildTenant({ modes: ['test'], tokens: 5 });
    const usageOnly = (await buildKey(tenant.account.id, 'test', ['usage:read'])).secret;
    const sessionsOnly = (await buildKey(tenant.account.id, 'test', ['sessions:read'])).secret;
    const target = await receiver();
    const before = {
      gateway: countsBy(await scrape('gateway')),
      sessions: countsBy(await scrape('sessions')),
      webhooks: countsBy(await scrape('webhooks')),
    };
    const sent: Sent[] = [];

    async function send(
      operationId: string,
      path: string,
      expected: number | 'any',
      options: ApiOptions = {},
      via: Sent['via'] = 'gateway',
    ) {
      const route = routeOf(operationId);
      const call = () => api(route.method.toUpperCase(), path, { key: tenant.testKey, contract: false, ...options });
      let response = await call();
      // The key's rate limit at the gateway (20/s) may answer first when the requests go faster: wait as
      // told and send again (the refusal is counted too, under the template, at the gateway alone).
      while (response.status === 429 && String(response.body?.detail).startsWith('Too many requests;')) {
        sent.push({ route, status: 429, via: 'gateway-alone' });
        // The period itself is what is waited for: the gateway measures it on its own clock.
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers['retry-after'] ?? 1) * 1000));
        response = await call();
      }
      if (expected !== 'any') {
        expect({ operationId, path, status: response.status, body: response.body }).toMatchObject({ status: expected });
      }
      sent.push({ route, status: response.status, via });
      return response;
    }

    /** The errors every keyed route gives: no key or an unknown one (403), no signed identity (401), a key without its scope, and by its shape 404/422/415/400. */
    async function commonErrors(operationId: string, query = '') {
      const route = routeOf(operationId);
      const method = route.method.toUpperCase();
      const path = pathOf(route, {}, query);
      await send(operationId, path, 403, { key: undefined });
      await send(operationId, path, 403, { key: `sk_test_${'x'.repeat(40)}` });
      // The service's own 401: a request without the gateway's signed identity, sent to it directly.
      await send(operationId, path, 401, { key: undefined, baseUrl: urlOf(route.service) }, 'service');
      await send(operationId, path, 403, { key: otherScope(route) === 'usage:read' ? usageOnly : sessionsOnly });
      if (route.params) {
        await send(operationId, path, 404);
        await send(operationId, pathOf(route, { id: 'not-an-id' }, query), 422);
      }
      if (method === 'POST' || method === 'PUT') {
        await send(operationId, path, 415, { rawBody: 'x', headers: { 'content-type': 'text/plain' } });
        await send(operationId, path, 400, { rawBody: '{"unclosed', headers: { 'content-type': 'application/json' } });
      }
    }

    // Sessions.
    const created = await send('createVerificationSession', '/v1/verification-sessions', 201, {
      body: { project_id: tenant.project.id },
    });
    const sessionId = created.body.id as string;
    await send('createVerificationSession', '/v1/verification-sessions', 422, { body: { project_id: 42 } });
    await commonErrors('createVerificationSession');
    await send('listVerificationSessions', '/v1/verification-sessions', 200);
    await send('listVerificationSessions', '/v1/verification-sessions?limit=0', 422);
    await commonErrors('listVerificationSessions');
    await send('getVerificationSession', pathOf(routeOf('getVerificationSession'), { id: sessionId }), 200);
    await commonErrors('getVerificationSession');
    const token = new URL(created.body.qr.svg as string).pathname
      .split('/')
      .pop()!
      .replace(/\.svg$/, '');
    for (const [operationId, extension] of [
      ['getQrSvg', 'svg'],
      ['getQrPng', 'png'],
    ] as const) {
      await send(operationId, `/v1/qr/${token}.${extension}`, 200, { key: undefined });
      await send(operationId, `/v1/qr/not-a-token.${extension}`, 404, { key: undefined });
    }
    await send('getUsage', '/v1/usage?month=2026-01', 200);
    await send('getUsage', '/v1/usage?month=January', 422);
    await commonErrors('getUsage', '?month=2026-01');
    await send('exportUsageSessionsCsv', '/v1/usage/sessions.csv?month=2026-01', 200);
    await send('exportUsageSessionsCsv', '/v1/usage/sessions.csv?month=January', 422);
    await commonErrors('exportUsageSessionsCsv', '?month=2026-01');

    // Webhook endpoints; the cancel below sends the endpoint an event whose delivery is redelivered.
    const endpoint = await send('createWebhookEndpoint', '/v1/webhook-endpoints', 201, {
      body: { url: target.url, events: ['verification_session.canceled'] },
    });
    const endpointId = endpoint.body.id as string;
    const endpointPath = (operationId: string) => pathOf(routeOf(operationId), { id: endpointId });
    await send('createWebhookEndpoint', '/v1/webhook-endpoints', 422, { body: { url: 'not a url', events: [] } });
    await commonErrors('createWebhookEndpoint');
    await send('listWebhookEndpoints', '/v1/webhook-endpoints', 200);
    await send('listWebhookEndpoints', '/v1/webhook-endpoints?limit=0', 422);
    await commonErrors('listWebhookEndpoints');
    await send('getWebhookEndpoint', endpointPath('getWebhookEndpoint'), 200);
    await commonErrors('getWebhookEndpoint');
    await send('updateWebhookEndpoint', endpointPath('updateWebhookEndpoint'), 200, { body: { description: 'labels' } });
    await commonErrors('updateWebhookEndpoint');
    await send('rotateWebhookEndpointSecret', endpointPath('rotateWebhookEndpointSecret'), 200);
    await commonErrors('rotateWebhookEndpointSecret');

    const cancelPath = pathOf(routeOf('cancelVerificationSession'), { id: sessionId });
    await send('cancelVerificationSession', cancelPath, 200);
    await send('cancelVerificationSession', cancelPath, 409);
    await commonErrors('cancelVerificationSession');

    const delivery = await waitFor(
      async () => {
        const list = await api('GET', `/v1/webhook-deliveries?endpoint=${endpointId}`, { key: tenant.testKey, contract: false });
        return (list.body?.data as { id: string }[] | undefined)?.[0];
      },
      15_000,
      50,
      'the canceled event delivered',
    );
    await send('listWebhookDeliveries', `/v1/webhook-deliveries?endpoint=${endpointId}`, 200);
    await send('listWebhookDeliveries', '/v1/webhook-deliveries?limit=0', 422);
    await commonErrors('listWebhookDeliveries');
    const deliveryPath = (operationId: string) => pathOf(routeOf(operationId), { id: delivery.id });
    await send('getWebhookDelivery', deliveryPath('getWebhookDelivery'), 200);
    await commonErrors('getWebhookDelivery');
    // The quota of tests and redeliveries (10 a minute per account) gives the 429 of both routes.
    await send('redeliverWebhookDelivery', deliveryPath('redeliverWebhookDelivery'), 202);
    await commonErrors('redeliverWebhookDelivery');
    await commonErrors('testWebhookEndpoint');
    let tests = 0;
    const testPath = endpointPath('testWebhookEndpoint');
    // Each refused or failed call above took a use of the quota too: test until it is spent.
    while ((await send('testWebhookEndpoint', testPath, 'any')).status === 202) {
      tests += 1;
      expect(tests).toBeLessThanOrEqual(10);
    }
    await send('redeliverWebhookDelivery', deliveryPath('redeliverWebhookDelivery'), 429);
    await send('deleteWebhookEndpoint', endpointPath('deleteWebhookEndpoint'), 204);
    await commonErrors('deleteWebhookEndpoint');

    // The gateway's own route, and a known path with a method it does not take (405 at the gateway).
    await send('getOpenApiDocument', '/v1/openapi.json', 200, { key: undefined });
    const patch = await api('PATCH', pathOf(routeOf('getVerificationSession'), { id: sessionId }), {
      key: tenant.testKey,
      contract: false,
    });
    expect(patch.status).toBe(405);

    for (const route of PUBLIC_ROUTES) {
      expect({ route: route.operationId, covered: sent.some((s) => s.route === route && s.status < 300) }).toEqual({
        route: route.operationId,
        covered: true,
      });
    }

    // Requests answered by the gateway itself (403, its own route) never reach a service.
    const expected = new Map<Upstream, Map<string, number>>([
      ['gateway', new Map()],
      ['sessions', new Map()],
      ['webhooks', new Map()],
    ]);
    const add = (service: Upstream, id: string) => expected.get(service)!.set(id, (expected.get(service)!.get(id) ?? 0) + 1);
    for (const { route, status, via } of sent) {
      const id = key(route.method.toUpperCase(), route.path, status);
      if (via !== 'service') add('gateway', id);
      if (route.service !== 'gateway' && (via === 'service' || (via === 'gateway' && status !== 403))) add(route.service, id);
    }
    add('gateway', key('PATCH', '/v1/verification-sessions/{id}', 405));

    const publicPaths = new Set(PUBLIC_ROUTES.map((route) => route.path));
    for (const service of ['gateway', 'sessions', 'webhooks'] as const) {
      const series = await scrape(service);
      const after = countsBy(series);
      for (const [id, count] of expected.get(service)!) {
        const grown = (after.get(id) ?? 0) - (before[service].get(id) ?? 0);
        expect({ service, series: id, atLeast: grown >= count }).toEqual({ service, series: id, atLeast: true });
      }
      // No other form of a route, whichever test sent it: templates of the contract, health, `unmatched`.
      const allowed = new Set([
        ...publicPaths,
        ...INTERNAL_ROUTES.filter((route) => route.service === service).map((route) => route.path),
        ...HEALTH,
        'unmatched',
      ]);
      const strays = [...new Set(series.map((s) => s.labels.route!))].filter((route) => !allowed.has(route));
      expect({ service, strays }).toEqual({ service, strays: [] });
    }
  });
});
