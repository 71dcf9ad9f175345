--liquibase formatted sql

-- Trace context (S-MO-9).

--changeset runlane:009-run-trace-context
-- S-MO-9: the trace context of the trigger that created the run, as the propagation headers a tracer wrote for it
-- (traceparent, b3, ...) in a JSON object of strings; each attempt continues that trace. NULL when the trigger was
-- not traced.
ALTER TABLE ${runlane_schema}.runs ADD COLUMN trace_context jsonb;
