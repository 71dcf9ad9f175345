--liquibase formatted sql

-- Console statistics: per-task figures and charts of finished runs over a time range (S-CO-20..22).

--changeset runlane:021-runs-finished-at-index
-- S-CO-22: the runs of the environment that finished in a range of time, for the tasks page and the charts of all
-- runs or of one queue. The query reads the range of this index and nothing else: the included columns make it an
-- index-only scan once the table is vacuumed, so a 7-day chart costs the runs finished in those 7 days, whatever the
-- table retains. It adds one entry per finished run (runs_finished_idx, keyed on status first, serves pruning).
CREATE INDEX runs_finished_at_idx
    ON ${runlane_schema}.runs (environment, finished_at) INCLUDE (task_id, queue, status, created_at)
    WHERE finished_at IS NOT NULL;

--changeset runlane:021-runs-task-finished-index
-- S-CO-22: the same range for one task, the task's charts, without reading the other tasks' runs of the range.
CREATE INDEX runs_task_finished_idx
    ON ${runlane_schema}.runs (environment, task_id, finished_at) INCLUDE (status, created_at)
    WHERE finished_at IS NOT NULL;
