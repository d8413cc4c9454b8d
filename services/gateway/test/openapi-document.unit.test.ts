import SwaggerParser from '@apidevtools/swagger-parser';
import {
  CreateSessionBodySchema,
  CreateWebhookEndpointBodySchema,
  PUBLIC_ROUTES,
  PaginationQuerySchema,
  WEBHOOK_EVENT_TYPES,
  buildOpenApiDocument,
} from '@idv/contracts';
import { OpenApiConformance } from '@idv/testkit';

const build = (): any => buildOpenApiDocument('https://api.idv.example', '1.2.3');
const document = build();

const operations = PUBLIC_ROUTES.map((route) => ({ route, operation: document.paths[route.path][route.method] }));
const resolve = (node: any): any => {
  if (!node?.$ref) return node;
  const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(node.$ref)!;
  return document.components[kind!][name!];
};

/** What a route can answer, from what it is: the statuses the gateway, the kit and the route itself give. */
function statusesOf(route: (typeof PUBLIC_ROUTES)[number]): number[] {
  const success = Number(Object.keys(route.responses).find((status) => Number(status) < 300));
  const statuses = new Set([success, 500]);
  const proxied = route.service !== 'gateway';
  if (proxied) [405, 413, 502].forEach((s) => statuses.add(s));
  if (route.scope) [401, 403, 422, 429, 503].forEach((s) => statuses.add(s));
  if (proxied && (route.method === 'post' || route.method === 'put')) [400, 415].forEach((s) => statuses.add(s));
  if (route.path.includes('{')) statuses.add(404);
  if (route.path.startsWith('/v1/qr/')) [410, 429].forEach((s) => statuses.add(s));
  if (route.operationId === 'listWebhookDeliveries') statuses.add(404);
  if (route.operationId === 'createVerificationSession') [402, 409].forEach((s) => statuses.add(s));
  if (route.operationId === 'cancelVerificationSession') statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

describe('OpenAPI document', () => {
  it('when validated by swagger-parser, then it is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(build())).resolves.toMatchObject({ openapi: '3.1.0' });
  });

  it('when every schema is compiled, then each is valid JSON Schema 2020-12 and every $ref resolves', () => {
    expect(new OpenApiConformance(build()).documentProblems()).toEqual([]);
  });

  it('when operations are listed, then operationIds are unique and every tag is declared with a description', () => {
    const webhookOperations = Object.values(document.webhooks).map((item: any) => item.post);
    const all = [...operations.map((o) => o.operation), ...webhookOperations];
    const ids = all.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const declared = new Map(document.tags.map((tag: any) => [tag.name, tag.description]));
    for (const operation of all) {
      expect(operation.description).toEqual(expect.any(String));
      for (const tag of operation.tags)
        expect({ tag, description: declared.get(tag) }).toEqual({ tag, description: expect.any(String) });
    }
    expect(document.info.license).toEqual({ name: expect.any(String), url: expect.stringMatching(/^https:/) });
    expect(document.info.contact).toMatchObject({ url: expect.stringMatching(/^https:/) });
  });

  it('when a route is documented, then it declares every status the stack can answer for it', () => {
    for (const { route, operation } of operations) {
      const declared = Object.keys(operation.responses).map(Number);
      expect({ operation: route.operationId, statuses: declared }).toEqual({
        operation: route.operationId,
        statuses: statusesOf(route),
      });
    }
  });

  it('when an error response is documented, then it is problem+json with the Problem schema (403 also the gateway body)', () => {
    for (const { route, operation } of operations) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue;
        const where = `${route.operationId} ${status}`;
        const expectedTypes = status === '403' ? ['application/json', 'application/problem+json'] : ['application/problem+json'];
        expect({ where, types: Object.keys(response.content) }).toEqual({ where, types: expectedTypes });
        expect(response.content['application/problem+json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Problem' });
        if (status === '403')
          expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Forbidden' });
      }
    }
  });

  it('when responses are documented, then their headers are: request id always, rate limit on keyed successes, Retry-After on 429/502/503', () => {
    for (const { route, operation } of operations) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const names = Object.keys(response.headers ?? {});
        const where = `${route.operationId} ${status}`;
        expect({ where, requestId: names.includes('X-Request-Id') }).toEqual({ where, requestId: true });
        if (route.scope && Number(status) < 300) {
          for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy']) {
            expect({ where, name, required: resolve(response.headers[name])?.required }).toEqual({ where, name, required: true });
          }
        }
        if (['429', '502', '503'].includes(status))
          expect({ where, retryAfter: names.includes('Retry-After') }).toEqual({ where, retryAfter: true });
      }
    }
    const byId = (id: string) => operations.find((o) => o.route.operationId === id)!.operation;
    expect(Object.keys(byId('createVerificationSession').responses['201'].headers)).toEqual(
      expect.arrayContaining(['Idempotent-Replayed', 'Cache-Control']),
    );
    expect(Object.keys(byId('exportUsageSessionsCsv').responses['200'].headers)).toContain('Content-Disposition');
    for (const id of [
      'listVerificationSessions',
      'getVerificationSession',
      'cancelVerificationSession',
      'rotateWebhookEndpointSecret',
    ]) {
      expect({ id, noStore: Object.keys(byId(id).responses['200'].headers).includes('Cache-Control') }).toEqual({
        id,
        noStore: true,
      });
    }
    expect(Object.keys(byId('createWebhookEndpoint').responses['201'].headers)).toContain('Cache-Control');
  });

  it('when webhooks are documented, then every event type has its envelope and the signature and delivery headers', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const [type, item] of Object.entries<any>(document.webhooks)) {
      const headers = Object.fromEntries(item.post.parameters.map((p: any) => [p.name, p]));
      expect(Object.keys(headers).sort()).toEqual([
        'User-Agent',
        'X-Service-Event-Id',
        'X-Service-Event-Type',
        'X-Service-Signature',
      ]);
      expect(headers['X-Service-Signature'].description).toContain('`<t>.<raw body>`');
      expect(headers['X-Service-Event-Type'].schema.enum).toEqual([type]);
      expect(item.post.requestBody.content['application/json'].schema).toBeDefined();
    }
    expect(document.components.schemas.SessionEvent.properties.data.properties.object).toEqual({
      $ref: '#/components/schemas/VerificationSession',
    });
  });

  it('when a request schema has a default, then the document states it in words and the contracts still apply it', () => {
    const requestSide = JSON.stringify([
      ...operations.flatMap(({ operation }) => operation.parameters ?? []),
      document.components.schemas.CreateVerificationSession,
      document.components.schemas.CreateWebhookEndpoint,
      document.components.schemas.UpdateWebhookEndpoint,
    ]);
    expect(requestSide).not.toContain('"default"');
    expect(document.components.schemas.CreateVerificationSession.properties.expires_in_hours.description).toContain(
      'Default: 24.',
    );
    const list = operations.find(({ route }) => route.operationId === 'listVerificationSessions')!.operation;
    const limit = list.parameters.find((p: any) => p.name === 'limit');
    expect(limit.description).toContain('Default: 25.');

    expect(CreateSessionBodySchema.parse({ project_id: 'prj_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6' }).expires_in_hours).toBe(24);
    expect(PaginationQuerySchema.parse({}).limit).toBe(25);
    expect(CreateWebhookEndpointBodySchema.parse({ url: 'https://x.example/h', events: ['test'] }).description).toBe('');
  });
});
