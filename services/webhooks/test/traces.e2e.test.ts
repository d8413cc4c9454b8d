import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Receiver, type Stack } from '@idv/testkit';
import {
  SESSIONS_AVAILABLE,
  call,
  createEndpoint,
  eventually,
  newTenant,
  stackTarget,
  startPrivateStack,
} from './support/harness';

/** One span as the OTLP/HTTP JSON exporter sends it, with its service and its attributes flattened. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

const SPAN_KIND = { server: 2, client: 3, producer: 4, consumer: 5 } as const;

/**
 * A stand-in for an OpenTelemetry collector on 127.0.0.1: accepts OTLP/HTTP JSON on POST /v1/traces and
 * keeps every span it got.
 */
class OtlpReceiverStandIn {
  readonly spans: ReceivedSpan[] = [];
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OtlpReceiverStandIn> {
    const server = http.createServer();
    const standIn = new OtlpReceiverStandIn(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        standIn.collect(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private collect(request: any): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = valueOf(resourceSpans.resource?.attributes, 'service.name');
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          const attributes: ReceivedSpan['attributes'] = {};
          for (const { key, value } of span.attributes ?? []) attributes[key] = plain(value);
          this.spans.push({
            service: String(service),
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes,
          });
        }
      }
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function plain(value: any): string | number | boolean {
  return value?.stringValue ?? value?.intValue ?? value?.boolValue ?? value?.doubleValue ?? '';
}

function valueOf(attributes: any[] | undefined, key: string): string | number | boolean | undefined {
  const found = attributes?.find((attribute) => attribute.key === key);
  return found ? plain(found.value) : undefined;
}

/** Whether any of the span's URL attributes (old or stable HTTP conventions) contains `text`. */
function urlContains(span: ReceivedSpan, text: string): boolean {
  return ['url.full', 'url.path', 'http.url', 'http.target'].some((key) => String(span.attributes[key] ?? '').includes(text));
}

let otlp: OtlpReceiverStandIn;
let receiver: Receiver;
let stack: Stack;

beforeAll(async () => {
  if (!SESSIONS_AVAILABLE) throw new Error('the sessions service is not built: run the build first');
  otlp = await OtlpReceiverStandIn.start();
  receiver = await Receiver.start();
  stack = await startPrivateStack({
    database: 'idv_test_traces',
    services: ['keys', 'sessions', 'webhooks', 'gateway'],
    // The SDK's own batch delay (5 s by default), read by it from the environment: spans arrive sooner.
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await otlp?.close();
});

describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it('when an API call causes a webhook, then the API request and the webhook POST share one trace, and the receiver gets no trace context', async () => {
    const tenant = await newTenant(stackTarget(stack), ['verification_session.canceled']);
    await createEndpoint(tenant, receiver.url, ['verification_session.canceled']);
    const created = await call(tenant, 'POST', '/v1/verification-sessions', { project_id: tenant.projectId });
    expect(created.status).toBe(201);
    const sessionId = created.body.id as string;

    const canceled = await call(tenant, 'POST', `/v1/verification-sessions/${sessionId}/cancel`);
    expect(canceled.status).toBe(200);
    const hit = await eventually(
      () => receiver.hits.find((h) => h.body?.type === 'verification_session.canceled' && h.raw.includes(sessionId)),
      20_000,
      'the webhook of the cancel',
      25,
    );

    const apiSpan = await eventually(
      () =>
        otlp.spans.find(
          (s) =>
            s.service === 'gateway' &&
            s.kind === SPAN_KIND.server &&
            urlContains(s, `/v1/verification-sessions/${sessionId}/cancel`),
        ),
      15_000,
      "the gateway's span of the cancel call",
    );
    const webhookPost = await eventually(
      () => otlp.spans.find((s) => s.service === 'webhooks' && s.kind === SPAN_KIND.client && urlContains(s, receiver.path)),
      15_000,
      "the webhooks service's span of the POST to the receiver",
    );
    expect(webhookPost.traceId).toBe(apiSpan.traceId);

    // The way between them, one hop after another: sessions wrote the outbox row in the call's trace, its
    // relay published in it, and the webhooks service consumed the message in it.
    const trace = otlp.spans.filter((s) => s.traceId === apiSpan.traceId);
    expect(trace.some((s) => s.service === 'sessions' && s.kind === SPAN_KIND.server)).toBe(true);
    expect(trace.some((s) => s.service === 'sessions' && s.kind === SPAN_KIND.producer)).toBe(true);
    expect(trace.some((s) => s.service === 'webhooks' && s.kind === SPAN_KIND.consumer)).toBe(true);

    // Our trace context never leaves the platform.
    expect(hit.headers.traceparent).toBeUndefined();
    expect(hit.headers.tracestate).toBeUndefined();

    // The request's log line carries the trace id beside the request id.
    const gatewayLog = readFileSync(stack.running.get('gateway')!.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes(`/v1/verification-sessions/${sessionId}/cancel`) && line.includes('request completed'));
    expect(gatewayLog).toHaveLength(1);
    expect(JSON.parse(gatewayLog[0]!)).toMatchObject({ request_id: canceled.headers['x-request-id'], trace_id: apiSpan.traceId });
  });
});
