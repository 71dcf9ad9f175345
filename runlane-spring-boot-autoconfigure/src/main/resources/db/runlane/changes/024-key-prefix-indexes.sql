--liquibase formatted sql

-- Runs by idempotency key or singleton key, exact or by prefix, for the runs list, its bulk actions and the console's
-- look-up (S-OP-15; issue 32, item 5).

--changeset runlane:024-runs-idempotency-key-index
-- S-OP-15: the runs list's key filters read the range of this index: an exact key, or the keys that start with a
-- prefix as the range [prefix, successor of prefix) in the "C" collation, where text compares by code point, so the
-- range holds exactly the keys with the prefix whatever the database's collation, and stays an index range in a plan
-- made once for any parameter (LIKE 'prefix%' does not). The unique indexes of admission (S-IK-1, S-SK-1) lead with
-- the task and hold only owners or active holders, so they serve no look-up over every retained run. Only runs with
-- a key have an entry: a keyed run costs one more entry at its creation, and one at each of its updates that is not
-- a heap-only (HOT) update; runs without a key cost nothing.
CREATE INDEX runs_idempotency_key_idx
    ON ${runlane_schema}.runs (environment, idempotency_key COLLATE "C")
    WHERE idempotency_key IS NOT NULL;

--changeset runlane:024-runs-singleton-key-index
-- S-OP-15: the same for singleton keys.
CREATE INDEX runs_singleton_key_idx
    ON ${runlane_schema}.runs (environment, singleton_key COLLATE "C")
    WHERE singleton_key IS NOT NULL;
