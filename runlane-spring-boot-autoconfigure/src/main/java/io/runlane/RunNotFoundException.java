package io.runlane;

import java.util.UUID;

/** No run with this id exists in the configured environment (S-ID-5). */
public class RunNotFoundException extends RunlaneException {

    private final UUID runId;

    public RunNotFoundException(UUID runId) {
        super("run_not_found", "No run " + runId + " exists");
        this.runId = runId;
    }

    public UUID runId() {
        return runId;
    }
}
