--liquibase formatted sql

-- Durable steps, stored results and durable waits (S-ST, S-RS).

--changeset runlane:006-waiting-status
-- S-RL-1: WAITING is an active status: a run parked on a durable sleep or on another run, holding no lease.
ALTER TABLE ${runlane_schema}.runs DROP CONSTRAINT runs_status_check;
ALTER TABLE ${runlane_schema}.runs
    ADD CONSTRAINT runs_status_check CHECK (status IN ('QUEUED', 'SCHEDULED', 'RUNNING', 'RETRYING', 'RELEASED',
        'WAITING', 'CANCELLATION_REQUESTED', 'SUCCEEDED', 'FAILED', 'CANCELLED'));

--changeset runlane:006-results-and-waits
ALTER TABLE ${runlane_schema}.runs
    -- S-RS-1: a TaskFunction's result, written by the statement that makes the run SUCCEEDED.
    ADD COLUMN result          jsonb,
    -- S-RS-4: the run a WAITING run waits for; run_at is its deadline until that run ends.
    ADD COLUMN awaiting_run_id uuid;

-- S-RS-4: a statement that ends a run wakes the runs waiting for it from this small index.
CREATE INDEX runs_awaiting_idx
    ON ${runlane_schema}.runs (awaiting_run_id)
    WHERE status = 'WAITING';

-- S-EX-1, S-ST-7: a WAITING run is claimable exactly when run_at (its wake-up time) has come; every wake-up source
-- sets run_at to the current time, so the claim index only has to include the status.
DROP INDEX ${runlane_schema}.runs_waiting_due_idx;
CREATE INDEX runs_waiting_due_idx
    ON ${runlane_schema}.runs (queue, run_at)
    WHERE status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING');

--changeset runlane:006-run-steps
-- S-ST-1..3: one row per completed step, written once by the attempt that holds the run's claim. The primary key
-- decides when two attempts race to record one step. No foreign key, like run_events: steps are written under
-- the run's row lock and deleted with their run by the pruner (S-ST-6, S-OP-3).
CREATE TABLE ${runlane_schema}.run_steps (
    run_id       uuid        NOT NULL,
    name         text        NOT NULL,
    occurrence   integer     NOT NULL,
    step_id      text        NOT NULL,
    result       jsonb,
    completed_at timestamptz NOT NULL,
    PRIMARY KEY (run_id, name, occurrence)
);
