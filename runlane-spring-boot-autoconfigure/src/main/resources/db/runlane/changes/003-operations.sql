--liquibase formatted sql

-- Operations: pruning finished runs by age.

--changeset runlane:003-prune-index
-- S-OP-3, S-OP-4: pruners walk finished runs oldest first, per status, in bounded batches.
CREATE INDEX runs_finished_idx
    ON ${runlane_schema}.runs (status, finished_at)
    WHERE finished_at IS NOT NULL;
