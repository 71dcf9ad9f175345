package io.runlane;

import java.util.UUID;

/** The awaited run was still active when the wait's timeout passed (S-RS-2, S-RS-4). */
public class RunAwaitTimeoutException extends RunlaneException {

    private final UUID runId;

    public RunAwaitTimeoutException(UUID runId) {
        super("await_timeout", "Run " + runId + " did not end within the timeout");
        this.runId = runId;
    }

    public UUID runId() {
        return runId;
    }
}
