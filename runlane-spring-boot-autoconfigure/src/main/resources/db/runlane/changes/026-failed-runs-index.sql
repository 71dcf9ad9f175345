--liquibase formatted sql

-- Runs by failure, for the runs list's failure code and message filters (S-OP-15; issue 32, item 9).

--changeset runlane:026-runs-failure-index
-- S-OP-1, S-OP-15: the runs that carry a failure (a FAILED run's, or the last failed attempt's of a run that retried),
-- newest first. The list filtered by failure code or message prefix walks this index instead of every retained run,
-- so a rare failure among millions of runs is found by reading the failed runs only. A run without a failure has no
-- entry: only an attempt that fails adds one.
CREATE INDEX runs_failure_idx
    ON ${runlane_schema}.runs (environment, id)
    WHERE failure_code IS NOT NULL;
