import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { redactSecrets } from './logger';

/**
 * The OpenTelemetry SDK and its instrumentations. Loaded by tracing.ts only when an OTLP endpoint is
 * configured: nothing here runs, or is even required, while tracing is off.
 */

export interface TracingRuntime {
  api: typeof api;
  /** A context key: requests made under it carry no trace headers (calls to integrators' endpoints). */
  noPropagation: symbol;
  shutdown: () => Promise<void>;
}

/** Probes and scrapes: every few seconds on every replica, and nobody's request. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** W3C trace context, except under the `noPropagation` key: a receiver outside the platform gets none. */
class ScopedPropagator implements api.TextMapPropagator {
  constructor(
    private readonly inner: api.TextMapPropagator,
    private readonly noPropagation: symbol,
  ) {}

  inject(context: api.Context, carrier: unknown, setter: api.TextMapSetter): void {
    if (context.getValue(this.noPropagation)) return;
    this.inner.inject(context, carrier, setter);
  }

  extract(context: api.Context, carrier: unknown, getter: api.TextMapGetter): api.Context {
    return this.inner.extract(context, carrier, getter);
  }

  fields(): string[] {
    return this.inner.fields();
  }
}

/**
 * URL attributes keep no query string: an integrator's webhook URL may carry its own token there
 * (`?token=…`), and a list filter of ours may carry a person's reference (`external_ref`).
 */
const URL_ATTRIBUTES = new Set(['url.full', 'url.query', 'http.url', 'http.target']);
function withoutQuery(key: string, value: string): string {
  if (key === 'url.query') return '';
  const mark = value.indexOf('?');
  return mark === -1 ? value : value.slice(0, mark);
}

/**
 * The logger's secret redaction applied to the spans too (an `lt_` token in a page's URL, a key in an
 * error message), before they are queued for export.
 */
export class RedactingSpanProcessor implements SpanProcessor {
  constructor(private readonly inner: SpanProcessor) {}

  onStart(span: Span, parentContext: api.Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnding(span: Span): void {
    const name = redactSecrets(span.name);
    if (name !== span.name) span.updateName(name);
    for (const [key, value] of Object.entries(span.attributes)) {
      if (typeof value !== 'string') continue;
      const redacted = redactSecrets(URL_ATTRIBUTES.has(key) ? withoutQuery(key, value) : value);
      if (redacted !== value) span.setAttribute(key, redacted);
    }
    for (const event of span.events) {
      for (const [key, value] of Object.entries(event.attributes ?? {})) {
        if (typeof value === 'string' && event.attributes) event.attributes[key] = redactSecrets(value);
      }
    }
  }

  onEnd(span: ReadableSpan): void {
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

export function startSdk(options: { service: string; endpoint: string; sampleRatio: number }): TracingRuntime {
  const noPropagation = api.createContextKey('idv.no-trace-propagation');
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.service }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }),
    spanProcessors: [new RedactingSpanProcessor(new BatchSpanProcessor(exporter))],
  });
  provider.register({ propagator: new ScopedPropagator(new W3CTraceContextPropagator(), noPropagation) });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
        // Background loops (relay, dispatcher, sweepers) would each start a trace per poll.
        requireParentforOutgoingSpans: true,
      }),
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new AmqplibInstrumentation(),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  return { api, noPropagation, shutdown: () => provider.shutdown() };
}
