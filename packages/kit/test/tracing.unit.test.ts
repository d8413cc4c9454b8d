import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Tracing as a service starts it: in a fresh node process (jest's module registry is not node's, and the
 * instrumentations hook node's), from the built kit, with the service's other modules required after it.
 * Nothing is exported: no span is ever flushed before the process exits.
 */
const KIT = path.resolve(__dirname, '..');

/** Runs `script` after the service's first import; returns its result (the line marked `probe`) and its log lines. */
function runProbe(env: Record<string, string>, script: string): { result: any; logs: any[] } {
  const prelude = `
    const path = require('node:path');
    const kit = (file) => require(path.join(${JSON.stringify(KIT)}, 'dist', file));
    const started = kit('tracing.js').startTracing('probe');
  `;
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _unset, ...inherited } = process.env;
  const out = execFileSync(process.execPath, ['-e', `${prelude}\n${script}`], {
    cwd: KIT,
    env: { ...inherited, ...env },
    encoding: 'utf8',
  });
  const lines = out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const result = lines.find((line) => line.probe);
  return { result, logs: lines.filter((line) => !line.probe) };
}

/** Modules of OpenTelemetry in node's cache, except the API package (prom-client loads it for exemplars). */
const LOADED_SDK = `Object.keys(require.cache).filter((file) => file.includes('@opentelemetry') && !file.includes('/@opentelemetry/api/'))`;

describe('tracing', () => {
  it('when OTEL_EXPORTER_OTLP_ENDPOINT is unset, then no OpenTelemetry SDK or instrumentation is loaded and nothing is hooked', () => {
    const { result } = runProbe(
      {},
      `
      kit('index.js'); require('pg'); require('amqplib'); require('express'); require('undici');
      const runtime = kit('service.js').startRuntime('probe', { LOG_LEVEL: 'silent', SHUTDOWN_TIMEOUT_MS: 1000 });
      console.log(JSON.stringify({
        probe: true,
        started,
        enabled: kit('tracing.js').tracingEnabled(),
        sdk: ${LOADED_SDK},
        pgHooked: '__wrapped' in require('pg').Client.prototype.query,
        httpHooked: '__wrapped' in require('node:http').request,
        headers: kit('tracing.js').currentTraceHeaders(),
      }));
      `,
    );
    expect(result).toEqual({
      probe: true,
      started: false,
      enabled: false,
      sdk: [],
      pgHooked: false,
      httpHooked: false,
      headers: null,
    });
  });

  it('when OTEL_EXPORTER_OTLP_ENDPOINT is set, then the modules are hooked, log lines carry the span ids and stored context is continued but can be withheld', () => {
    const { result, logs } = runProbe(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
      `
      const tracing = kit('tracing.js');
      const pg = require('pg');
      const runtime = kit('service.js').startRuntime('probe', { LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: 1000 });
      const api = require(require.resolve('@opentelemetry/api', { paths: [${JSON.stringify(KIT)}] }));
      const stored = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'idv=1' };
      const seen = {};
      api.trace.getTracer('probe').startActiveSpan('work', (span) => {
        runtime.logger.info('inside a span');
        seen.span = span.spanContext();
        seen.headers = tracing.currentTraceHeaders();
        seen.withheld = tracing.withoutTracePropagation(() => tracing.currentTraceHeaders());
        span.end();
      });
      runtime.logger.info('outside any span');
      seen.continued = tracing.withTraceHeaders(stored, () =>
        api.trace.getTracer('probe').startActiveSpan('child', (span) => { span.end(); return tracing.currentTraceHeaders(); }));
      console.log(JSON.stringify({
        probe: true,
        started,
        seen,
        pgHooked: '__wrapped' in pg.Client.prototype.query,
        httpHooked: '__wrapped' in require('node:http').request,
      }));
      process.exit(0);
      `,
    );
    expect(result.started).toBe(true);
    expect(result.pgHooked).toBe(true);
    expect(result.httpHooked).toBe(true);
    const { span, headers, withheld, continued } = result.seen;
    expect(headers).toEqual({ traceparent: `00-${span.traceId}-${span.spanId}-01`, tracestate: null });
    expect(withheld).toBeNull();
    expect(continued.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(continued.traceparent).not.toContain('b7ad6b7169203331');
    expect(continued.tracestate).toBe('idv=1');
    expect(logs.find((line) => line.msg === 'inside a span')).toMatchObject({ trace_id: span.traceId, span_id: span.spanId });
    expect(logs.find((line) => line.msg === 'outside any span')).not.toHaveProperty('trace_id');
  });
});
