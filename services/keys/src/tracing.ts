// The first import of main.ts: the instrumentations must hook http, express, pg and amqplib before any
// of them is loaded. Off (and nothing of OpenTelemetry loaded) unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
import { startTracing } from '@idv/kit/tracing';

startTracing('keys');
