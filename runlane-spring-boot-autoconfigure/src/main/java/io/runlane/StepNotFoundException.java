package io.runlane;

import java.util.UUID;

/**
 * A fork named a step its source run never recorded (S-RV-3). A step that failed was not recorded either: fork
 * with no step to replay every recorded step and run the failed one again.
 */
public class StepNotFoundException extends RunlaneException {

    private final UUID runId;

    private final String stepName;

    public StepNotFoundException(UUID runId, String stepName) {
        super(
                "step_not_found",
                "Run " + runId + " recorded no step named '" + stepName + "'; a step that failed was never recorded:"
                        + " fork without a step to replay every recorded step and run it again (S-RV-3)");
        this.runId = runId;
        this.stepName = stepName;
    }

    /** The run that was to be forked. */
    public UUID runId() {
        return runId;
    }

    /** The step name it did not record. */
    public String stepName() {
        return stepName;
    }
}
