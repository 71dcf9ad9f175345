package io.runlane;

import java.time.Duration;
import java.util.UUID;

/**
 * What a running handler knows about its attempt. The run id is stable across attempts, which makes it the
 * idempotency key to pass to external APIs.
 */
public interface RunContext {

    /** The run's id; the same for every attempt of the run. */
    UUID runId();

    /** The task id. */
    String taskId();

    /** The attempt number, starting at 1. */
    int attempt();

    /** Whether an operator asked for this run to be cancelled; the handler should return soon. */
    boolean isCancellationRequested();

    /** Ends the attempt as a release when the handler returns: the same run runs again after {@code delay}. */
    void release(Duration delay, String reason);

    /** The template, to trigger other tasks from inside a run. */
    RunlaneTemplate runlane();
}
