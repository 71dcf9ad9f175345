--liquibase formatted sql

-- Throttle (S-TH): at most N attempt starts per task and throttle key in any window of its period.

--changeset runlane:019-run-throttle-key
-- S-TH-1: the throttle key a run was admitted with: the resolver's or the trigger's key, the empty string for one
-- throttle for the whole task, NULL when its task declared no throttle. A nullable column without a default is added
-- without rewriting the table.
ALTER TABLE ${runlane_schema}.runs ADD COLUMN throttle_key text;

--changeset runlane:019-waiting-due-index-without-throttled-runs
-- S-EX-1, S-PR-2, S-TH-2: the claim index holds the waiting runs without a throttle only, so a backlog of throttled
-- runs is never scanned by the claims of other tasks and queues; the throttled runs have an index of their own.
DROP INDEX ${runlane_schema}.runs_waiting_due_idx;
CREATE INDEX runs_waiting_due_idx
    ON ${runlane_schema}.runs (queue, priority DESC, run_at)
    WHERE status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING') AND throttle_key IS NULL;

--changeset runlane:019-throttled-waiting-due-index
-- S-TH-2, S-PR-2: the waiting throttled runs by task, priority and due time, for the throttled claim of each task.
-- It holds throttled runs only: a task without a throttle never writes to it.
CREATE INDEX runs_throttled_waiting_due_idx
    ON ${runlane_schema}.runs (task_id, priority DESC, run_at)
    WHERE status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING') AND throttle_key IS NOT NULL;

--changeset runlane:019-throttle-starts
-- S-TH-1, S-TH-3: one row per attempt start of a throttled run, written by the statement that claims it, started_at
-- being that claim's time (the attempt's RunAttempt.startedAt). The claim of a task counts its rows per key in the
-- window and deletes the rows that left the longest window; a claim handed back before its handler started
-- (S-EX-17) deletes its row (run, fencing token).
CREATE TABLE ${runlane_schema}.throttle_starts (
    run_id        uuid        NOT NULL,
    fencing_token bigint      NOT NULL,
    environment   text        NOT NULL,
    task_id       text        NOT NULL,
    throttle_key  text        NOT NULL,
    started_at    timestamptz NOT NULL,
    PRIMARY KEY (run_id, fencing_token)
);

CREATE INDEX throttle_starts_window_idx
    ON ${runlane_schema}.throttle_starts (environment, task_id, throttle_key, started_at);
