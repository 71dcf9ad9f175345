--liquibase formatted sql

-- Runs: the row rules that the engine's own statements keep are no longer re-checked by PostgreSQL on every write.

--changeset runlane:012-runs-without-check-constraints
-- S-OP-12: PostgreSQL prepares a table's CHECK expressions afresh for every INSERT or UPDATE statement, and these four
-- cost the keyed trigger statement about a third of its execution time (pg_stat_statements: 100-112 against 64-73
-- microseconds, 20,000 executions each); claims, heartbeats, steps and completions, which update a run, paid the same.
-- Only Runlane's statements write runs, and every state they write is one of these rules' allowed states; the test
-- suite checks all four rules against every row its tests leave behind. The invariants other runs rely on (one owner
-- per idempotency key, one active holder per singleton key) are unique indexes and stay.
ALTER TABLE ${runlane_schema}.runs DROP CONSTRAINT runs_status_check;
ALTER TABLE ${runlane_schema}.runs DROP CONSTRAINT runs_finished_iff_terminal;
ALTER TABLE ${runlane_schema}.runs DROP CONSTRAINT runs_ttl_needs_key;
ALTER TABLE ${runlane_schema}.runs DROP CONSTRAINT runs_attempts_check;
