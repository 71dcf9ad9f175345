package io.runlane;

import org.jspecify.annotations.Nullable;

/**
 * User code for a task that returns a result (S-RS-1). Declared with {@code @Task} like a {@link TaskHandler}; the
 * payload type {@code P} is its first generic argument. The returned value is stored as JSON with the run in the
 * statement that makes it {@code SUCCEEDED}, and read back with {@link RunOperations#result} or {@link
 * RunOperations#awaitResult}; a result larger than {@code runlane.results.max-size} fails the run ({@code
 * result_too_large}, S-RS-5).
 *
 * @param <P> the payload type
 * @param <R> the result type; it must be mappable to and from JSON
 */
public interface TaskFunction<P, R> extends TaskKeys<P> {

    /** Executes one attempt of a run and returns the run's result. */
    @Nullable
    R run(P payload, RunContext context) throws Exception;
}
