import { api } from '@idv/testkit';
import { RouteTable, buildOpenApiDocument } from '@idv/contracts';

describe('OpenAPI document', () => {
  it('when the document is fetched, then it is OpenAPI 3.1 and lists every route the gateway serves', async () => {
    const response = await api('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body as { openapi: string; paths: Record<string, Record<string, unknown>>; components: unknown };
    expect(document.openapi).toBe('3.1.0');
    const served = new RouteTable().routes;
    expect(served.length).toBeGreaterThanOrEqual(18);
    for (const route of served) {
      expect({ path: route.path, method: route.method, documented: Boolean(document.paths[route.path]?.[route.method]) }).toEqual(
        {
          path: route.path,
          method: route.method,
          documented: true,
        },
      );
    }
  });

  it('when a keyed route is documented, then it names its scope and the bearer security scheme', async () => {
    const { body } = await api('GET', '/v1/openapi.json');
    const create = body.paths['/v1/verification-sessions'].post;
    expect(create.description).toContain('sessions:write');
    expect(create.security).toEqual([{ apiKey: [] }]);
    expect(create.requestBody.content['application/json'].schema).toBeDefined();
    expect(body.paths['/v1/qr/{token}.svg'].get.security).toEqual([]);
  });

  it('when the served document is compared with the generator, then they are the same (the conformance checks use the generator)', async () => {
    const { body } = await api('GET', '/v1/openapi.json');
    expect(body).toEqual(buildOpenApiDocument(body.servers[0].url, body.info.version));
    expect(body.webhooks).toBeDefined();
  });
});
