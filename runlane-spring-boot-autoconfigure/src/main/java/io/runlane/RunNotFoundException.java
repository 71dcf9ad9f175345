package io.runlane;

import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** No run with this id exists in the configured environment (S-ID-5). */
public class RunNotFoundException extends RunlaneException {

    private final @Nullable UUID runId;

    public RunNotFoundException(UUID runId) {
        super("run_not_found", "No run " + runId + " exists");
        this.runId = runId;
    }

    /** No run matched a lookup by key rather than by id, such as the active owner of a singleton key (S-SG-3). */
    public RunNotFoundException(String message) {
        super("run_not_found", message);
        this.runId = null;
    }

    /** The id looked up, or {@code null} when the lookup was by key. */
    public @Nullable UUID runId() {
        return runId;
    }
}
