package io.runlane;

import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A completed step of a run (S-ST-6).
 *
 * @param name the step's name
 * @param occurrence which call of that name it was during one execution of the handler, from 1
 * @param stepId the step's stable id (S-ST-2)
 * @param completedAt when its result was recorded (database clock)
 * @param resultJson the recorded result as JSON text ({@code null} for a step without a result)
 */
public record RunStep(
        String name,
        int occurrence,
        String stepId,
        Instant completedAt,
        @JsonRawValue @Nullable String resultJson) {}
