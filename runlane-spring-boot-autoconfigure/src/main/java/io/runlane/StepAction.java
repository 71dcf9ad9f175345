package io.runlane;

/**
 * The body of a durable step without a result ({@link RunContext#step(String, StepAction)}): once it has returned,
 * the step is recorded and never runs again in that run (S-ST-1).
 */
@FunctionalInterface
public interface StepAction {

    /** Performs the step; pass {@link StepContext#stepId()} to external APIs as their idempotency key. */
    void run(StepContext step) throws Exception;
}
