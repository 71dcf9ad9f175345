package io.runlane;

import java.util.Objects;
import java.util.UUID;

/**
 * The answer to a trigger: the outcome and the run it refers to, either the new run or the existing owner.
 *
 * @param outcome whether a run was created
 * @param run a snapshot of the created run or of the idempotency key's owner
 */
public record TriggerResult(TriggerOutcome outcome, Run run) {

    public TriggerResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(run, "run");
    }

    public UUID runId() {
        return run.id();
    }

    public boolean created() {
        return outcome == TriggerOutcome.CREATED;
    }
}
