--liquibase formatted sql

-- Run history pages: the console reads a run's steps and attempts a page at a time, newest first (S-CO-10).

--changeset runlane:013-run-steps-completed-index
-- S-ST-6, S-CO-10: a run's steps in completion order, the order runs().steps(runId) lists them. A page continues
-- backwards from the (completed_at, name, occurrence) of the last step it showed along this index, instead of sorting
-- every step of the run: a run with 20,000 steps costs a page of 50 what a run with 50 does. It adds one index entry
-- per recorded step.
CREATE INDEX run_steps_completed_idx
    ON ${runlane_schema}.run_steps (run_id, completed_at, name, occurrence);

--changeset runlane:013-run-events-attempts-index
-- S-EX-17, S-CO-10: the events that open (CLAIMED), undo (HANDED_BACK) or end an attempt, without the steps, signal
-- consumptions and cancellation requests recorded in between. A page of attempts finds its claims and the event that
-- ended each from this index, however many steps an attempt recorded. It adds an entry per claim and per attempt end,
-- none per trigger or step.
CREATE INDEX run_events_attempts_idx
    ON ${runlane_schema}.run_events (run_id, seq)
    WHERE type IN ('CLAIMED', 'HANDED_BACK', 'SUCCEEDED', 'RETRY_SCHEDULED', 'RELEASED', 'FAILED', 'CANCELLED',
                   'LEASE_EXPIRED', 'WAITING');
