--liquibase formatted sql

-- The schedule a run was fired for, so that runs can be listed by source and by schedule (S-OP-14, S-CO-23; issue 32).

--changeset runlane:022-runs-schedule-id
-- S-OP-14: set when a schedule fires a run (S-SC-2) or an operator triggers a schedule now (S-SC-5), NULL for every
-- other run. Adding a nullable column without a default rewrites nothing. No backfill: runs created before this
-- column existed keep NULL and list as TRIGGER. Their occurrence keys (schedule.<id>.<millis>) could be parsed,
-- but updating every retained run would rewrite the table under its lock, and a key of that shape may also have
-- been chosen by a caller.
ALTER TABLE ${runlane_schema}.runs ADD COLUMN schedule_id text;

--changeset runlane:022-runs-schedule-index
-- S-OP-14: one schedule's runs, newest first, read from this index's range and nothing else, however many runs of
-- other sources the table holds. Only the runs of schedules have an entry.
CREATE INDEX runs_schedule_idx
    ON ${runlane_schema}.runs (environment, schedule_id, id)
    WHERE schedule_id IS NOT NULL;
