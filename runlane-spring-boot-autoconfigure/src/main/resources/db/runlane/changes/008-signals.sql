--liquibase formatted sql

-- Signals (S-SG) and singleton conflict policies (S-CP).

--changeset runlane:008-run-signals
-- S-SG-1, S-SG-4: a mailbox per run and name. A signal is stored while its run is active and consumed at most once,
-- by the awaitSignal step recorded in the same statement (consumed_by_step is that step's id). No foreign key, like
-- run_events and run_steps: the pruner deletes signals with their run (S-SG-5, S-OP-3).
CREATE TABLE ${runlane_schema}.run_signals (
    id                uuid        PRIMARY KEY,
    run_id            uuid        NOT NULL,
    name              text        NOT NULL,
    payload           jsonb       NOT NULL,
    sent_at           timestamptz NOT NULL,
    consumed_at       timestamptz,
    consumed_by_step  text,
    deduplication_key text
);

-- S-SG-2: at most one signal per (run, name, deduplication key); a concurrent repeat waits for the first and then
-- stores nothing (INSERT ... ON CONFLICT DO NOTHING).
CREATE UNIQUE INDEX run_signals_deduplication_uq
    ON ${runlane_schema}.run_signals (run_id, name, deduplication_key)
    WHERE deduplication_key IS NOT NULL;

-- S-SG-4: the oldest unconsumed signal of a name, first in first out.
CREATE INDEX run_signals_unconsumed_idx
    ON ${runlane_schema}.run_signals (run_id, name, sent_at, id)
    WHERE consumed_at IS NULL;

-- S-SG-5: listing a run's signals, and deleting them with their run.
CREATE INDEX run_signals_run_idx
    ON ${runlane_schema}.run_signals (run_id, sent_at);

--changeset runlane:008-awaiting-signal
-- S-SG-4: the signal name a WAITING run waits for; run_at is its deadline until a signal of that name arrives.
ALTER TABLE ${runlane_schema}.runs ADD COLUMN awaiting_signal text;

--changeset runlane:008-singleton-supersede
-- S-CP-3, S-SK-4: SUPERSEDE moves a singleton key from a running owner to its successor in the trigger's
-- transaction. The owner, asked to cancel, stays active but is released (no longer holds the key); the successor
-- holds it and waits (WAITING, awaiting_run_id) until the released owner is terminal. The holders' index excludes
-- released runs, so at every instant one run holds a key; a second index allows at most one released, still active
-- run per key, which is the one a successor may wait for.
ALTER TABLE ${runlane_schema}.runs ADD COLUMN singleton_released boolean NOT NULL DEFAULT false;
DROP INDEX ${runlane_schema}.runs_active_singleton_uq;
CREATE UNIQUE INDEX runs_active_singleton_uq
    ON ${runlane_schema}.runs (environment, task_id, singleton_key)
    WHERE singleton_key IS NOT NULL AND finished_at IS NULL AND NOT singleton_released;
CREATE UNIQUE INDEX runs_released_singleton_uq
    ON ${runlane_schema}.runs (environment, task_id, singleton_key)
    WHERE singleton_key IS NOT NULL AND finished_at IS NULL AND singleton_released;
