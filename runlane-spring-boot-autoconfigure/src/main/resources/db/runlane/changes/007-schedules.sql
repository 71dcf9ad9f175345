--liquibase formatted sql

-- Schedules: cron and interval triggers whose occurrences become ordinary runs (S-SC).

--changeset runlane:007-schedules
CREATE TABLE ${runlane_schema}.schedules (
    environment   text        NOT NULL,
    id            text        NOT NULL,
    task_id       text        NOT NULL,
    -- S-SC-1: a cron expression read in zone, or a fixed interval; exactly one of the two.
    cron          text,
    every_ms      bigint,
    zone          text        NOT NULL,
    payload       jsonb       NOT NULL,
    overlap       text        NOT NULL,
    catch_up      text        NOT NULL,
    paused        boolean     NOT NULL DEFAULT false,
    -- S-SC-8: declared by the application (annotation or configuration) rather than created at run time.
    declared      boolean     NOT NULL,
    -- S-SC-2: the next occurrence lives here, not in memory; NULL when the expression has no further one.
    next_fire_at  timestamptz,
    last_fire_at  timestamptz,
    -- No foreign key: runs are pruned on their own schedule (S-OP-3); a pruned last run reads as no status.
    last_run_id   uuid,
    -- S-SC-3: occurrences skipped because the previous run was still active.
    skipped_count bigint      NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (environment, id),
    CONSTRAINT schedules_cron_xor_every CHECK ((cron IS NULL) <> (every_ms IS NULL)),
    CONSTRAINT schedules_every_positive CHECK (every_ms IS NULL OR every_ms > 0),
    CONSTRAINT schedules_overlap_check CHECK (overlap IN ('SKIP', 'ALLOW', 'CANCEL_OTHER')),
    CONSTRAINT schedules_catch_up_check CHECK (catch_up IN ('NONE', 'LATEST', 'ALL'))
);

-- S-SC-2: firers look for due, unpaused schedules in next-fire order.
CREATE INDEX schedules_due_idx
    ON ${runlane_schema}.schedules (environment, next_fire_at)
    WHERE NOT paused;
