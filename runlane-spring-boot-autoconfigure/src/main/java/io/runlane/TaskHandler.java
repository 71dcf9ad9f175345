package io.runlane;

/**
 * User code for a task. The payload type {@code P} is read from the generic argument; it must be mappable to and
 * from JSON and may carry Jakarta Bean Validation constraints, which are checked before a run is stored.
 *
 * <p>The key resolvers ({@link TaskKeys}) derive keys from stable business identity in the payload. They must be
 * pure functions: the same payload always yields the same keys. A task that returns a result implements {@link
 * TaskFunction} instead.
 *
 * @param <P> the payload type
 */
public interface TaskHandler<P> extends TaskKeys<P> {

    /** Executes one attempt of a run. */
    void run(P payload, RunContext context) throws Exception;
}
