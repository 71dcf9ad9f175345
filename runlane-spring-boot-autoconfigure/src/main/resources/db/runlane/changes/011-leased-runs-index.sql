--liquibase formatted sql

-- Execution: statements about one running run find it by its primary key, never through the running-runs index.

--changeset runlane:011-leased-runs-index
-- S-EX-7, S-QC-2: recovery, concurrency counts and statistics read the running runs from this small index. Its
-- predicate also names the lease, which every RUNNING or CANCELLATION_REQUESTED run holds (the claim sets it, every
-- statement that ends or hands back an attempt clears it with the status): the range queries say so, the statements
-- about one run (a completion, a heartbeat, a step) do not, and so they cannot choose this index. A bitmap scan of
-- it visits every entry left by runs that finished since the last vacuum, and with a short batch of run ids the
-- planner preferred that to the primary key: a completion of eight runs read thousands of dead entries.
DROP INDEX ${runlane_schema}.runs_running_idx;
CREATE INDEX runs_running_idx
    ON ${runlane_schema}.runs (queue, lease_expires_at)
    WHERE status IN ('RUNNING', 'CANCELLATION_REQUESTED') AND lease_expires_at IS NOT NULL;
