--liquibase formatted sql

-- Throttled claims past a saturated key's backlog (S-TH-2; issue 30).

--changeset runlane:025-throttled-key-due-index
-- S-TH-2, S-PR-2: the waiting throttled runs by task, throttle key, priority and due time. When the oldest due runs of
-- a throttled task belong to keys at their throttle, the claim walks the task's keys from this index, one probe per
-- key and priority level, instead of reading a saturated key's backlog to reach the runs of other keys.
CREATE INDEX runs_throttled_key_due_idx
    ON ${runlane_schema}.runs (task_id, throttle_key, priority DESC, run_at)
    WHERE status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED', 'WAITING') AND throttle_key IS NOT NULL;
