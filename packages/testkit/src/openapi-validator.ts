import { buildOpenApiDocument } from '@idv/contracts';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

/** A response as the test client saw it. */
export interface ObservedResponse {
  method: string;
  /** Request path, query string allowed. */
  path: string;
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** What a webhook receiver got: lower-case header names and the raw body. */
export interface ObservedDelivery {
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}

export interface Conformance {
  /** `operationId` of the matched operation, or null when none matched the method and path. */
  operation: string | null;
  problems: string[];
}

interface PathEntry {
  template: string;
  pattern: RegExp;
  item: Json;
}

const DOCUMENT_ID = 'https://idv.test/openapi.json';

const pointerPart = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+?' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

function mediaTypeOf(headers: Record<string, string>): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`)
    .join('; ');
}

/**
 * Checks responses (and webhook deliveries) against the OpenAPI document the gateway serves: the
 * status is declared for the operation, the media type is declared for that status, the body is
 * valid against its schema and the declared required headers are present and well formed.
 */
export class OpenApiConformance {
  private readonly ajv: Ajv2020;
  private readonly paths: PathEntry[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    // OpenAPI keywords such as `example` are not JSON Schema: strict mode would refuse them.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.paths = Object.entries(document.paths as Json).map(([template, item]) => ({
      template,
      pattern: templatePattern(template),
      item: item as Json,
    }));
  }

  /** Problems of one response; an empty list when it conforms. OPTIONS (CORS preflights) are not documented. */
  checkResponse(response: ObservedResponse): Conformance {
    const method = response.method.toLowerCase();
    if (method === 'options') return { operation: null, problems: [] };
    const path = response.path.split('?')[0]!;
    const matches = this.paths.filter((entry) => entry.pattern.test(path));
    const operationMethod = method === 'head' ? 'get' : method;
    const match = matches.find((entry) => isObject(entry.item[operationMethod]));
    if (!match) return { operation: null, problems: this.checkUnrouted(response, matches.length > 0) };

    const operation = match.item[operationMethod] as Json;
    const operationId = String(operation.operationId);
    const pointer = `#/paths/${pointerPart(match.template)}/${operationMethod}/responses`;
    const responses = operation.responses as Json;
    const key = [String(response.status), `${Math.floor(response.status / 100)}XX`, 'default'].find((k) => k in responses);
    if (!key) {
      return {
        operation: operationId,
        problems: [`status ${response.status} is not declared (declared: ${Object.keys(responses).join(', ')})`],
      };
    }
    const declared = this.resolve(responses[key]);
    const problems = [
      ...this.checkHeaders(declared, response.headers, `${pointer}/${key}`),
      ...(method === 'head' ? [] : this.checkContent(declared, response, `${pointer}/${key}`)),
    ];
    return { operation: operationId, problems };
  }

  /** Problems of one webhook delivery against the `webhooks` entry of its `X-Service-Event-Type`. */
  checkDelivery(delivery: ObservedDelivery): Conformance {
    const type = String(delivery.headers['x-service-event-type'] ?? '');
    const webhook = (this.document.webhooks as Json | undefined)?.[type];
    if (!isObject(webhook) || !isObject(webhook.post)) {
      return { operation: null, problems: [`event type "${type}" is not in the webhooks section`] };
    }
    const operation = webhook.post;
    const pointer = `#/webhooks/${pointerPart(type)}/post`;
    const problems: string[] = [];
    ((operation.parameters ?? []) as Json[]).forEach((parameter, index) => {
      if (parameter.in !== 'header') return;
      const value = delivery.headers[String(parameter.name).toLowerCase()];
      if (value === undefined) {
        if (parameter.required) problems.push(`header ${String(parameter.name)} is missing`);
        return;
      }
      const validate = this.validator(`${pointer}/parameters/${index}/schema`);
      if (!validate(Array.isArray(value) ? value.join(', ') : value)) {
        problems.push(`header ${String(parameter.name)}: ${describeErrors(validate.errors)}`);
      }
    });
    let body: unknown;
    try {
      body = JSON.parse(delivery.rawBody);
    } catch {
      return { operation: String(operation.operationId), problems: [...problems, 'body is not JSON'] };
    }
    const validate = this.validator(`${pointer}/requestBody/content/application~1json/schema`);
    if (!validate(body)) problems.push(`body: ${describeErrors(validate.errors)}`);
    return { operation: String(operation.operationId), problems };
  }

  /**
   * Problems of the document itself, which OpenAPI validators do not look into for 3.1: every schema
   * (components, parameters, headers, bodies, webhooks) is valid JSON Schema 2020-12 and compiles with
   * all its `$ref`s resolved.
   */
  documentProblems(): string[] {
    const problems: string[] = [];
    const metaSchema = new Ajv2020({ strict: false });
    const check = (schema: Json, pointer: string) => {
      if (!metaSchema.validateSchema(schema)) problems.push(`${pointer}: ${describeErrors(metaSchema.errors)}`);
      try {
        this.validator(pointer);
      } catch (error) {
        problems.push(`${pointer}: ${(error as Error).message}`);
      }
    };
    const walk = (node: unknown, pointer: string): void => {
      if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${pointer}/${index}`));
      if (!isObject(node)) return;
      for (const [key, value] of Object.entries(node)) {
        const at = `${pointer}/${pointerPart(key)}`;
        if (pointer === '#/components/schemas' && isObject(value)) check(value, at);
        else if (key === 'schema' && isObject(value)) check(value, at);
        else walk(value, at);
      }
    };
    walk(this.document, '#');
    return problems;
  }

  /** Throws a readable error when the response does not conform. */
  assertResponse(response: ObservedResponse): void {
    const { operation, problems } = this.checkResponse(response);
    if (problems.length === 0) return;
    throw new Error(
      [
        `Response does not match the OpenAPI document: ${response.method} ${response.path} → ${response.status} ` +
          `${mediaTypeOf(response.headers) || '(no content type)'} (operation ${operation ?? 'none'})`,
        ...problems.map((problem) => `  - ${problem}`),
        `  body: ${response.text.slice(0, 600)}`,
      ].join('\n'),
    );
  }

  /** Paths no operation serves with this method: the gateway answers a problem, 404 or 405. */
  private checkUnrouted(response: ObservedResponse, pathExists: boolean): string[] {
    const expected = pathExists ? [404, 405] : [404];
    if (!expected.includes(response.status)) {
      return [
        `no operation ${response.method.toUpperCase()} for this path, yet status ${response.status} (expected ${expected.join(' or ')})`,
      ];
    }
    if (response.method.toLowerCase() === 'head') return [];
    if (mediaTypeOf(response.headers) !== 'application/problem+json')
      return ['an unrouted request must get application/problem+json'];
    const validate = this.validator('#/components/schemas/Problem');
    return validate(JSON.parse(response.text)) ? [] : [`body: ${describeErrors(validate.errors)}`];
  }

  private checkHeaders(declared: Json, headers: Record<string, string>, pointer: string): string[] {
    const problems: string[] = [];
    for (const [name, raw] of Object.entries((declared.headers ?? {}) as Json)) {
      const header = this.resolve(raw);
      const value = headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`header ${name} is declared required but missing`);
        continue;
      }
      if (!isObject(header.schema)) continue;
      // Header values are text: numbers are compared as numbers.
      const coerced = header.schema.type === 'integer' || header.schema.type === 'number' ? Number(value) : value;
      const schemaPointer =
        isObject(raw) && typeof raw.$ref === 'string' ? `${raw.$ref}/schema` : `${pointer}/headers/${pointerPart(name)}/schema`;
      const validate = this.validator(schemaPointer);
      if (!validate(coerced)) problems.push(`header ${name}=${value}: ${describeErrors(validate.errors)}`);
    }
    return problems;
  }

  private checkContent(declared: Json, response: ObservedResponse, pointer: string): string[] {
    const content = (declared.content ?? {}) as Json;
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) return response.text === '' ? [] : ['a body was sent, but this response declares none'];
    if (response.text === '') return [`empty body, expected ${mediaTypes.join(' or ')}`];
    const mediaType = mediaTypeOf(response.headers);
    if (!mediaTypes.includes(mediaType))
      return [`media type ${mediaType || '(none)'} is not declared (declared: ${mediaTypes.join(', ')})`];
    if (!mediaType.endsWith('json')) return [];
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [`body is not valid JSON though declared ${mediaType}`];
    }
    const validate = this.validator(`${pointer}/content/${pointerPart(mediaType)}/schema`);
    return validate(body) ? [] : [`body: ${describeErrors(validate.errors)}`];
  }

  private resolve(node: unknown): Json {
    let current = node;
    while (isObject(current) && typeof current.$ref === 'string') {
      current = current.$ref
        .replace(/^#\//, '')
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((at, part) => (isObject(at) ? at[part] : undefined), this.document);
    }
    return isObject(current) ? current : {};
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`${DOCUMENT_ID}${pointer}`);
      if (!validate) throw new Error(`OpenAPI conformance: no schema at ${pointer}`);
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

let shared: OpenApiConformance | undefined;

/** The conformance checker over the document the gateway serves (same generator, same contracts). */
export function openApiConformance(): OpenApiConformance {
  shared ??= new OpenApiConformance(buildOpenApiDocument('http://localhost', 'test'));
  return shared;
}
