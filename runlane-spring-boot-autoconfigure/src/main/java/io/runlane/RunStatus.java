package io.runlane;

/** The lifecycle status of a run (S-RL-1). A terminal run never changes again. */
public enum RunStatus {
    QUEUED(false),
    SCHEDULED(false),
    RUNNING(false),
    RETRYING(false),
    RELEASED(false),
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
