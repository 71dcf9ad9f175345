package io.runlane;

import java.util.UUID;

/** The awaited run ended {@code FAILED} (S-RS-2); {@link #failure()} says why. */
public class RunFailedException extends RunlaneException {

    private final UUID runId;

    private final RunFailure failure;

    public RunFailedException(UUID runId, RunFailure failure) {
        super("run_failed", "Run " + runId + " failed: " + failure.code() + describe(failure));
        this.runId = runId;
        this.failure = failure;
    }

    public UUID runId() {
        return runId;
    }

    public RunFailure failure() {
        return failure;
    }

    private static String describe(RunFailure failure) {
        return failure.message() == null ? "" : " (" + failure.message() + ")";
    }
}
