--liquibase formatted sql

-- Rate limits (S-RT): the runs a rate-limited task created, counted per key over a sliding window.

--changeset runlane:016-rate-limit-creations
-- S-RT-1, S-RT-4: one row per run created by a task with a rate limit, written in the transaction that creates the
-- run, under the key's advisory lock. rate_limit_key is '' when the limit is the whole task's (no key). No foreign
-- key to runs: a pruned run still counted in its window, and the rows outlive the runs only until their window ends.
CREATE TABLE ${runlane_schema}.rate_limit_creations (
    environment    text        NOT NULL,
    task_id        text        NOT NULL,
    rate_limit_key text        NOT NULL,
    created_at     timestamptz NOT NULL,
    run_id         uuid        NOT NULL
);

--changeset runlane:016-rate-limit-creations-window-index
-- S-RT-2: an admission counts the creations of its key in the window, oldest first, from this index alone; the
-- admission and the pruner delete the expired ones from its low end.
CREATE INDEX rate_limit_creations_window_idx
    ON ${runlane_schema}.rate_limit_creations (environment, task_id, rate_limit_key, created_at);
