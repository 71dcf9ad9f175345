package io.runlane;

import java.util.List;

/** A payload is missing, of the wrong type, or violates its Bean Validation constraints (S-ID-4). */
public class PayloadValidationException extends RunlaneException {

    private final String taskId;

    private final List<String> violations;

    public PayloadValidationException(String taskId, List<String> violations) {
        super("payload_invalid", "Payload for task '" + taskId + "' is invalid: " + String.join("; ", violations));
        this.taskId = taskId;
        this.violations = List.copyOf(violations);
    }

    public String taskId() {
        return taskId;
    }

    /** Every violation, each as {@code property: message}. */
    public List<String> violations() {
        return violations;
    }
}
