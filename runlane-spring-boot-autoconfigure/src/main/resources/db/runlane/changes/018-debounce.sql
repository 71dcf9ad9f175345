--liquibase formatted sql

-- Debounce (S-DB): triggers of one debounce key fold into one pending run.

--changeset runlane:018-debounce-columns
-- S-DB-1: the run's debounce key, when its trigger had one; when its window started (the first trigger's database
-- time, the bound of debounceMaxWait); and how many later triggers folded into it (shown by the console). Columns
-- without a default, or with a constant one, are added without rewriting the table.
ALTER TABLE ${runlane_schema}.runs ADD COLUMN debounce_key text;
ALTER TABLE ${runlane_schema}.runs ADD COLUMN debounce_started_at timestamptz;
ALTER TABLE ${runlane_schema}.runs ADD COLUMN debounce_folds integer NOT NULL DEFAULT 0;

--changeset runlane:018-pending-debounce-index
-- S-DB-3, S-DB-4: at most one pending run per (environment, task, debounce key). A run is pending until its first
-- claim: the claim makes it RUNNING and bumps its fencing token, which no later status undoes (a hand-back, S-EX-17,
-- keeps the token), so a claimed run leaves this index for good and the next trigger of the key creates the next
-- pending run. A run cancelled while pending that an operator resumes (S-RV-1) was never claimed: the resume clears
-- debounce_started_at, so that it is not pending again next to the key's next pending run. Triggers fold with INSERT ... ON CONFLICT against this index, which PostgreSQL arbitrates: a trigger
-- meeting the row of a claim in progress waits for it and then finds no pending run.
CREATE UNIQUE INDEX runs_pending_debounce_uq
    ON ${runlane_schema}.runs (environment, task_id, debounce_key)
    WHERE debounce_key IS NOT NULL AND debounce_started_at IS NOT NULL AND status IN ('SCHEDULED', 'QUEUED')
      AND fencing_token = 0;
