--liquibase formatted sql

-- Priority (S-PR): a run's priority orders the claims of its queue.

--changeset runlane:015-run-priority
-- S-PR-1: an integer from -100 to 100, default 0. A column with a constant default is added without rewriting the
-- table (PostgreSQL 11 and later).
ALTER TABLE ${runlane_schema}.runs ADD COLUMN priority smallint NOT NULL DEFAULT 0;

--changeset runlane:015-waiting-due-by-priority-index
-- S-EX-1, S-PR-2: the claim index orders a queue's waiting runs by priority, then due time. A claim visits the
-- priorities present in the queue from the highest down, one index probe each, and reads only the due entries of
-- each, so a deep backlog of runs due later is never scanned; with the default priority alone that is one level.
DROP INDEX ${runlane_schema}.runs_waiting_due_idx;
CREATE INDEX runs_waiting_due_idx
    ON ${runlane_schema}.runs (queue, priority DESC, run_at)
    WHERE status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING');
