package io.runlane;

import java.util.UUID;

/** An operation does not apply to a run in its current status, such as a retry of a run that did not fail. */
public class RunStateException extends RunlaneException {

    private final UUID runId;

    private final RunStatus status;

    public RunStateException(UUID runId, RunStatus status, String reason) {
        super("run_state_invalid", "Run " + runId + " is " + status + ": " + reason);
        this.runId = runId;
        this.status = status;
    }

    public UUID runId() {
        return runId;
    }

    public RunStatus status() {
        return status;
    }
}
