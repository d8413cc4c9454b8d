import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { ProblemSchema } from './errors';
import { COMMON_ERROR_RESPONSES, PUBLIC_ROUTES, type ResponseSpec } from './routes';

function toContent(spec: ResponseSpec) {
  if (spec.contentType) {
    return { [spec.contentType]: { schema: { type: 'string' as const } } };
  }
  return spec.schema ? { 'application/json': { schema: spec.schema } } : undefined;
}

/** Builds the OpenAPI 3.1 document of the public API from the route table and its zod schemas. */
export function buildOpenApiDocument(serverUrl: string, version: string): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'sk_test_… or sk_live_…; the prefix selects the mode',
  });
  registry.register('Problem', ProblemSchema);

  for (const route of PUBLIC_ROUTES) {
    const responses: Record<string, { description: string; content?: ReturnType<typeof toContent> }> = {};
    const all: Record<number, ResponseSpec> = route.scope ? { ...COMMON_ERROR_RESPONSES, ...route.responses } : route.responses;
    for (const [status, spec] of Object.entries(all)) {
      const content = toContent(spec);
      responses[status] = content ? { description: spec.description, content } : { description: spec.description };
    }
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      description: route.scope ? `Requires scope \`${route.scope}\`.` : 'Public, no key.',
      security: route.scope ? [{ [bearer.name]: [] }] : [],
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.headers ? { headers: route.headers } : {}),
        ...(route.body ? { body: { content: { 'application/json': { schema: route.body } }, required: true } } : {}),
      },
      responses,
    });
  }

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Identity verification API (Argentina)',
      version,
      description: 'Create verification sessions, receive signed webhook events, read usage.',
    },
    servers: [{ url: serverUrl }],
  });
  return document as unknown as Record<string, unknown>;
}
