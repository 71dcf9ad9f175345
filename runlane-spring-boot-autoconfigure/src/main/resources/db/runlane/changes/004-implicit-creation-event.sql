--liquibase formatted sql

-- Triggers: the creation event is derived from the run's row instead of being stored.

--changeset runlane:004-created-scheduled
-- S-RL-2: every run's event 1 is CREATED, at created_at, by 'runlane', with the status the run was created in. That
-- status is QUEUED, or SCHEDULED when this flag is set; run_at alone cannot tell, since releases and retries move it.
-- Storing the event as a row cost every trigger a third row and a fourth index entry. Events 1 that were stored
-- before this change are still read as they are.
ALTER TABLE ${runlane_schema}.runs
    ADD COLUMN created_scheduled boolean NOT NULL DEFAULT false;
