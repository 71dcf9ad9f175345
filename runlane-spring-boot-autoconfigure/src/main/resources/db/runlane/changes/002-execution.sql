--liquibase formatted sql

-- Execution: leases with fencing tokens, release accounting, and the index workers claim from.

--changeset runlane:002-leases
ALTER TABLE ${runlane_schema}.runs
    -- S-EX-1, S-EX-2: the worker holding the current attempt and until when (database clock).
    ADD COLUMN lease_owner      text,
    ADD COLUMN lease_expires_at timestamptz,
    -- S-EX-3: bumped by every claim; a completion must present the token of its claim.
    ADD COLUMN fencing_token    bigint  NOT NULL DEFAULT 0,
    -- S-EX-6: attempts that ended in a release; they do not spend the retry budget.
    ADD COLUMN releases         integer NOT NULL DEFAULT 0;

-- S-EX-1, S-TR-4: workers claim due runs of their queues oldest first. The index holds waiting runs only, so it
-- stays small however many finished runs are retained.
CREATE INDEX runs_waiting_due_idx
    ON ${runlane_schema}.runs (queue, run_at)
    WHERE status IN ('QUEUED', 'SCHEDULED', 'RETRYING', 'RELEASED');

-- S-EX-7, S-QC-2: recovery finds expired leases, and claims count running runs per queue, from this small index.
CREATE INDEX runs_running_idx
    ON ${runlane_schema}.runs (queue, lease_expires_at)
    WHERE status IN ('RUNNING', 'CANCELLATION_REQUESTED');
