package io.runlane;

import java.util.UUID;

/** The awaited run ended {@code CANCELLED} (S-RS-2), so it has no result. */
public class RunCancelledException extends RunlaneException {

    private final UUID runId;

    public RunCancelledException(UUID runId) {
        super("run_cancelled", "Run " + runId + " was cancelled");
        this.runId = runId;
    }

    public UUID runId() {
        return runId;
    }
}
