package io.runlane;

/**
 * The lifecycle status of a run (S-RL-1). A terminal run never changes again, unless an operator resumes a {@code FAILED} or {@code CANCELLED} run (S-RV-1). {@link #WAITING} is active: the run is
 * parked on a durable sleep or on another run (S-ST-7, S-RS-4) and holds no worker slot, lease or queue capacity,
 * but keeps its keys.
 */
public enum RunStatus {
    QUEUED(false),
    SCHEDULED(false),
    RUNNING(false),
    RETRYING(false),
    RELEASED(false),
    WAITING(false),
    CANCELLATION_REQUESTED(false),
    SUCCEEDED(true),
    FAILED(true),
    CANCELLED(true);

    private final boolean terminal;

    RunStatus(boolean terminal) {
        this.terminal = terminal;
    }

    public boolean isTerminal() {
        return terminal;
    }

    public boolean isActive() {
        return !terminal;
    }
}
