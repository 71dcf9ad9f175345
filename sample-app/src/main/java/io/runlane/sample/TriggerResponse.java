package io.runlane.sample;

import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import java.util.UUID;

/** What a trigger endpoint answers: whether a run was created, and which run handles the request. */
record TriggerResponse(TriggerOutcome outcome, UUID runId) {

    static TriggerResponse of(TriggerResult result) {
        return new TriggerResponse(result.outcome(), result.runId());
    }
}
