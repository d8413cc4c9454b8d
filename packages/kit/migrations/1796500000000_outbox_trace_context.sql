-- Up Migration
-- The W3C trace context (traceparent, tracestate) of the transaction that wrote the row, so the relay
-- publishes the event in that trace and its consumers continue it (docs/operations.md "Traces").
-- NULL when tracing is off or the row was written outside a traced request.
ALTER TABLE outbox ADD COLUMN traceparent text, ADD COLUMN tracestate text;

-- Down Migration
ALTER TABLE outbox DROP COLUMN traceparent, DROP COLUMN tracestate;
