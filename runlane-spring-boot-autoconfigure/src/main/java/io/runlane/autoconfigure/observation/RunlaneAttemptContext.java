package io.runlane.autoconfigure.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Map;

/**
 * The context of a {@code runlane.attempt} observation: a {@link ReceiverContext} whose carrier is the trace context
 * the run's trigger stored (S-MO-9). With Micrometer Tracing, its propagating receiver handler starts the attempt's
 * span in that trace, as a child of the trigger's span; with none stored, the attempt starts a trace of its own.
 */
final class RunlaneAttemptContext extends ReceiverContext<Map<String, String>> {

    RunlaneAttemptContext(Map<String, String> traceContext) {
        super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
        setCarrier(traceContext);
    }
}
