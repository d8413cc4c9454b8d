import { z } from 'zod';
import { loadConfig } from './config';
import type * as TracingSdk from './tracing-sdk';
import type { TracingRuntime } from './tracing-sdk';

/**
 * Traces (docs/operations.md "Traces"): OpenTelemetry, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 * This module loads no OpenTelemetry code by itself: `startTracing` requires the SDK and the
 * instrumentations (tracing-sdk.ts) when the endpoint is set, and every helper below is a plain call
 * of its argument while tracing is off. It must be the first thing a service's main.ts loads, before
 * http, express, pg and amqplib are required, so that their instrumentations can hook them.
 */

export const tracingEnvSchema = z.object({
  /** Base URL of an OTLP/HTTP receiver (a collector); traces go to `<endpoint>/v1/traces`. Unset: off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess((value) => (value === '' ? undefined : value), z.string().url().optional()),
  /** Share of new traces recorded (a trace started elsewhere follows its caller's decision). */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
});
export type TracingConfig = z.infer<typeof tracingEnvSchema>;

/** W3C trace context of the span that caused something, as stored beside it (outbox row, webhook message). */
export interface TraceHeaders {
  traceparent: string;
  tracestate: string | null;
}

let runtime: TracingRuntime | null = null;

/**
 * Starts the SDK for `service` when the environment names an OTLP endpoint; returns whether it did.
 * Called once, by the service's first import (src/tracing.ts), before anything else is required.
 */
export function startTracing(service: string, source?: NodeJS.ProcessEnv): boolean {
  if (runtime) return true;
  const config = loadConfig(tracingEnvSchema, source);
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  // Required here and only here: with tracing off not one OpenTelemetry module is loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./tracing-sdk') as typeof TracingSdk;
  runtime = sdk.startSdk({
    service,
    endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    sampleRatio: config.OTEL_TRACES_SAMPLER_ARG,
  });
  return true;
}

export function tracingEnabled(): boolean {
  return runtime !== null;
}

/** Sends the spans still buffered; part of the lifecycle's shutdown. */
export async function stopTracing(): Promise<void> {
  const current = runtime;
  runtime = null;
  await current?.shutdown();
}

/** The trace context of the active span, to store beside what it causes; null when off or no span. */
export function currentTraceHeaders(): TraceHeaders | null {
  if (!runtime) return null;
  const { api } = runtime;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  const traceparent = carrier.traceparent;
  return traceparent ? { traceparent, tracestate: carrier.tracestate ?? null } : null;
}

/** Runs `work` as a continuation of the stored trace context (its spans are children of that span). */
export function withTraceHeaders<T>(headers: TraceHeaders | null | undefined, work: () => T): T {
  if (!runtime || !headers) return work();
  const { api } = runtime;
  const carrier: Record<string, string> = { traceparent: headers.traceparent };
  if (headers.tracestate) carrier.tracestate = headers.tracestate;
  return api.context.with(api.propagation.extract(api.ROOT_CONTEXT, carrier), work);
}

/**
 * Runs `work` so that the requests it makes are traced but carry no `traceparent`/`tracestate`: our
 * trace ids are not for third parties (webhook receivers).
 */
export function withoutTracePropagation<T>(work: () => T): T {
  if (!runtime) return work();
  const { api, noPropagation } = runtime;
  return api.context.with(api.context.active().setValue(noPropagation, true), work);
}

/** The active span's ids, for the logger (pino `mixin`): nothing when no span is active. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  if (!runtime) return {};
  const span = runtime.api.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
