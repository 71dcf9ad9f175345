--liquibase formatted sql

-- A bounded stack trace with each failure of a run, so that a failure can be acted on from the console (S-EX-35;
-- issue 32, item 9).

--changeset runlane:023-runs-failure-stack
-- S-EX-35: the stack trace of the exception that failed the run's last failed attempt, as the JDK prints it, at most
-- 32 frames per exception and 8,192 characters in all; NULL when that failure had no exception (lease_expired,
-- attempt_timeout, payload_invalid) and for failures stored before this column existed. It sits beside
-- failure_code/failure_class/failure_message and changes with them. Adding a nullable column without a default
-- rewrites nothing. The failure events keep their message only (run_events.detail): one stack per attempt would add
-- up to 8 KiB to every failed attempt's event on the table every transition writes to.
ALTER TABLE ${runlane_schema}.runs ADD COLUMN failure_stack text;
