-- Up Migration
-- The W3C trace context (traceparent, tracestate) of what queued the message (the consumed session
-- event, or the API call of a test or redelivery): each attempt's request to the receiver is a span of
-- that trace (docs/operations.md "Traces"). Never sent to the receiver. NULL when tracing is off.
ALTER TABLE messages ADD COLUMN traceparent text, ADD COLUMN tracestate text;

-- Down Migration
ALTER TABLE messages DROP COLUMN traceparent, DROP COLUMN tracestate;
