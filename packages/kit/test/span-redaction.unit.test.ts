import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { RedactingSpanProcessor } from '../src/tracing-sdk';

/**
 * Spans go through the redacting processor as tracing-sdk.ts wires it (in front of the exporting
 * processor), with an in-memory exporter in place of OTLP: what it holds is what would leave the process.
 */
function exportedSpan(record: (tracer: ReturnType<BasicTracerProvider['getTracer']>) => void): ReadableSpan {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new RedactingSpanProcessor(new SimpleSpanProcessor(exporter))],
  });
  record(provider.getTracer('span-redaction-test'));
  const spans = exporter.getFinishedSpans();
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

/** A secret value left in clear: the prefix followed by anything but the redaction mark. */
const CLEAR_SECRET = /\b(sk_test_|sk_live_|lt_)(?!\[REDACTED\])[A-Za-z0-9_-]/;

describe('span redaction', () => {
  it('when a span carries URLs with a query string and secrets, then the exported span keeps neither', () => {
    const span = exportedSpan((tracer) => {
      const live = tracer.startSpan('GET /l/lt_Q3vX9kPz01abcdEFGH', {
        kind: SpanKind.CLIENT,
        attributes: {
          'url.full': 'https://hooks.integrator.test/idv?token=s3cr3t&ref=person-42',
          'url.query': 'token=s3cr3t&ref=person-42',
          'http.url': 'http://127.0.0.1:4000/v1/verification-sessions?external_ref=maria-nunez',
          'http.target': '/l/lt_Q3vX9kPz01abcdEFGH?step=document',
          'http.request.header.authorization': 'Bearer sk_test_4eC39HqLyjWDarjtT1zdp7dc',
          'db.statement': "SELECT id FROM sessions WHERE id = $1 AND note = 'why?'",
          'http.response.status_code': 200,
        },
      });
      live.setAttribute('error.message', 'key sk_test_4eC39HqLyjWDarjtT1zdp7dc was revoked');
      live.addEvent('exception', { 'exception.message': 'no session for link lt_Q3vX9kPz01abcdEFGH' });
      live.end();
    });

    expect(span.name).toBe('GET /l/lt_[REDACTED]');
    expect(span.attributes).toEqual({
      'url.full': 'https://hooks.integrator.test/idv',
      'url.query': '',
      'http.url': 'http://127.0.0.1:4000/v1/verification-sessions',
      'http.target': '/l/lt_[REDACTED]',
      'http.request.header.authorization': 'Bearer sk_test_[REDACTED]',
      // Only URL attributes lose what follows a `?`.
      'db.statement': "SELECT id FROM sessions WHERE id = $1 AND note = 'why?'",
      'http.response.status_code': 200,
      'error.message': 'key sk_test_[REDACTED] was revoked',
    });
    expect(span.events.map((event) => event.attributes)).toEqual([{ 'exception.message': 'no session for link lt_[REDACTED]' }]);

    const exported = JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events });
    expect(exported).not.toMatch(CLEAR_SECRET);
    expect(exported).not.toMatch(/s3cr3t|person-42|maria-nunez|step=document/);
  });

  it('when a span carries nothing to redact, then it is exported as recorded', () => {
    const span = exportedSpan((tracer) => {
      tracer
        .startSpan('POST /v1/verification-sessions', {
          attributes: { 'url.full': 'https://api.idv.test/v1/verification-sessions', 'http.request.method': 'POST' },
        })
        .end();
    });

    expect(span.name).toBe('POST /v1/verification-sessions');
    expect(span.attributes).toEqual({
      'url.full': 'https://api.idv.test/v1/verification-sessions',
      'http.request.method': 'POST',
    });
  });
});
