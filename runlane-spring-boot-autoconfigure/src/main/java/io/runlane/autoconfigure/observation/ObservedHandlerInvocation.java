package io.runlane.autoconfigure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.runlane.Run;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.worker.HandlerInvocation;

/**
 * Observes each handler call as {@code runlane.attempt}, current on the handler's thread while it runs, so that the
 * handler's own observations (HTTP calls, queries) are its children. Keys: task and queue (low cardinality); the run
 * id and attempt number only as high-cardinality values. Its context is a {@link RunlaneAttemptContext} carrying the
 * trace context the trigger stored, so that a tracer continues the trigger's trace (S-MO-9).
 */
final class ObservedHandlerInvocation implements HandlerInvocation {

    static final String NAME = "runlane.attempt";

    private final ObservationRegistry registry;

    ObservedHandlerInvocation(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void invoke(ClaimedRun claimed, int attempt, Handler handler) throws Exception {
        Run run = claimed.run();
        Observation observation = Observation.createNotStarted(
                        NAME, () -> new RunlaneAttemptContext(claimed.traceContext()), registry)
                .lowCardinalityKeyValue("runlane.task", run.taskId())
                .lowCardinalityKeyValue("runlane.queue", run.queue())
                .highCardinalityKeyValue("runlane.run.id", run.id().toString())
                .highCardinalityKeyValue("runlane.attempt", Integer.toString(attempt))
                .contextualName("runlane attempt " + run.taskId())
                .start();
        try (Observation.Scope scope = observation.openScope()) {
            handler.call();
        } catch (Exception | Error ex) {
            observation.error(ex);
            throw ex;
        } finally {
            observation.stop();
        }
    }
}
