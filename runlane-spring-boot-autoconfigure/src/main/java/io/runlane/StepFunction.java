package io.runlane;

import org.jspecify.annotations.Nullable;

/**
 * The body of a durable step that returns a result ({@link RunContext#step(String, Class, StepFunction)}). It runs
 * at most until it returns once per run; its result is recorded and replayed afterwards (S-ST-1).
 *
 * @param <R> the result type; it must be mappable to and from JSON
 */
@FunctionalInterface
public interface StepFunction<R> {

    /** Performs the step; pass {@link StepContext#stepId()} to external APIs as their idempotency key. */
    @Nullable
    R apply(StepContext step) throws Exception;
}
