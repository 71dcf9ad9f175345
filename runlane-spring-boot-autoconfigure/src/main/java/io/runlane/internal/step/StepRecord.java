package io.runlane.internal.step;

import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A completed step to record for the attempt holding {@code token} (S-ST-3), on behalf of {@code actor}.
 *
 * @param json the step's result as JSON, {@code null} for none
 */
record StepRecord(
        UUID runId,
        long token,
        String actor,
        String name,
        int occurrence,
        String stepId,
        @Nullable String json) {}
