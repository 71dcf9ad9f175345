--liquibase formatted sql

-- Triggers: the idempotency key's owner is the run row itself, so a created run writes one row instead of two.

--changeset runlane:010-idempotency-keys-in-runs
-- S-IK-1, S-IK-7: a partial unique index on runs names the one run that holds each (environment, task, key). A run
-- holds its key from creation while it is active (S-IK-2) and, once SUCCEEDED or CANCELLED, for its retention
-- (finished_at + the TTL captured at creation, S-IK-3, S-IK-6); a FAILED run, or a terminal 'active'-mode run
-- (TTL 0), leaves the index by its own status change (S-IK-4, S-IK-5), as a finished run leaves the singleton index.
-- idempotency_key_released takes a run out early: an operator's reset (S-IK-8), or a trigger that finds the holder's
-- retention passed (S-IK-10). A run deleted by hand takes its key with it, so there are no orphans (S-IK-13).
ALTER TABLE ${runlane_schema}.runs ADD COLUMN idempotency_key_released boolean NOT NULL DEFAULT false;
-- Runs that were not the owner recorded in idempotency_keys (taken over after their retention, reset by an operator,
-- or never admitted) are released; owners keep the key, with the same retention as before.
UPDATE ${runlane_schema}.runs r SET idempotency_key_released = true
WHERE r.idempotency_key IS NOT NULL AND r.status <> 'FAILED'
  AND (r.finished_at IS NULL OR r.idempotency_key_ttl_ms > 0)
  AND NOT EXISTS (SELECT FROM ${runlane_schema}.idempotency_keys k
                  WHERE k.environment = r.environment AND k.task_id = r.task_id
                    AND k.idempotency_key = r.idempotency_key AND k.run_id = r.id);
CREATE UNIQUE INDEX runs_idempotency_key_owner_uq
    ON ${runlane_schema}.runs (environment, task_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL AND NOT idempotency_key_released AND status <> 'FAILED'
      AND (finished_at IS NULL OR idempotency_key_ttl_ms > 0);
DROP TABLE ${runlane_schema}.idempotency_keys;
