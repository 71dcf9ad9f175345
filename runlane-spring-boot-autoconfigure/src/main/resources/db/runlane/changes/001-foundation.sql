--liquibase formatted sql

-- Runlane foundation schema: runs, their events, and idempotency key ownership.
-- ${runlane_schema} is a Liquibase changelog parameter (and works as a Flyway placeholder).

--changeset runlane:001-runs
CREATE TABLE ${runlane_schema}.runs (
    id                     uuid        PRIMARY KEY,
    environment            text        NOT NULL,
    task_id                text        NOT NULL,
    queue                  text        NOT NULL,
    status                 text        NOT NULL,
    payload                jsonb       NOT NULL,
    idempotency_key        text,
    -- S-IK-6: the retention captured when the run was created; 0 means 'active' mode.
    idempotency_key_ttl_ms bigint,
    singleton_key          text,
    concurrency_key        text,
    attempts               integer     NOT NULL DEFAULT 0,
    max_attempts           integer     NOT NULL,
    run_at                 timestamptz NOT NULL,
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    finished_at            timestamptz,
    failure_code           text,
    failure_class          text,
    failure_message        text,
    source_type            text,
    source_run_id          uuid,
    -- S-RL-2: the sequence number of the run's latest event; bumped under the run's row lock.
    last_event_seq         integer     NOT NULL DEFAULT 1,
    CONSTRAINT runs_status_check CHECK (status IN ('QUEUED', 'SCHEDULED', 'RUNNING', 'RETRYING', 'RELEASED',
        'CANCELLATION_REQUESTED', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    -- S-RL-1: finished_at marks exactly the terminal runs, so "finished_at IS NULL" means "active" in indexes.
    CONSTRAINT runs_finished_iff_terminal CHECK ((finished_at IS NOT NULL) = (status IN ('SUCCEEDED', 'FAILED', 'CANCELLED'))),
    -- S-IK-6: a TTL without an idempotency key is meaningless.
    CONSTRAINT runs_ttl_needs_key CHECK (idempotency_key_ttl_ms IS NULL OR (idempotency_key IS NOT NULL AND idempotency_key_ttl_ms >= 0)),
    CONSTRAINT runs_attempts_check CHECK (attempts >= 0 AND max_attempts >= 1)
);

-- S-SK-1, S-SK-4: at most one active run per (environment, task, singleton key). Trigger inserts use
-- ON CONFLICT against this partial index, so a conflict is answered without an error; a terminal transition
-- sets finished_at, which releases the key in the same statement.
CREATE UNIQUE INDEX runs_active_singleton_uq
    ON ${runlane_schema}.runs (environment, task_id, singleton_key)
    WHERE singleton_key IS NOT NULL AND finished_at IS NULL;

--changeset runlane:001-run-events
CREATE TABLE ${runlane_schema}.run_events (
    -- No foreign key: events are written in the same statement as their run's change and deleted with it by the
    -- pruner (S-OP-3); an RI check per event would only cost trigger throughput.
    run_id     uuid        NOT NULL,
    seq        integer     NOT NULL,
    type       text        NOT NULL,
    status     text        NOT NULL,
    created_at timestamptz NOT NULL,
    actor      text,
    detail     text,
    -- S-RL-2: one event per (run, sequence number); the primary key also orders a run's history.
    PRIMARY KEY (run_id, seq)
);

--changeset runlane:001-idempotency-keys
-- S-IK-1, S-IK-7: one row per (environment, task, key) names the owner. retained_until is NULL while the owner
-- is active (S-IK-2) and finished_at + TTL once a SUCCEEDED or CANCELLED owner keeps it (S-IK-3). A FAILED owner
-- or an 'active'-mode owner deletes its row when it ends (S-IK-4, S-IK-5). A trigger takes over a row whose
-- retention has passed in the same INSERT ... ON CONFLICT statement, so no background job is needed (S-IK-10).
CREATE TABLE ${runlane_schema}.idempotency_keys (
    environment     text        NOT NULL,
    task_id         text        NOT NULL,
    idempotency_key text        NOT NULL,
    run_id          uuid        NOT NULL,
    retained_until  timestamptz,
    PRIMARY KEY (environment, task_id, idempotency_key)
);

-- Cleaning expired retention rows in bounded batches (pruning job).
CREATE INDEX idempotency_keys_retained_until_idx
    ON ${runlane_schema}.idempotency_keys (retained_until)
    WHERE retained_until IS NOT NULL;
