package io.runlane.autoconfigure.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The context of a {@code runlane.trigger} observation: a {@link SenderContext} whose carrier is the run's stored trace
 * context (S-MO-9). With Micrometer Tracing, its propagating sender handler starts the trigger's span as a child of
 * the current one and writes that span's propagation headers into the carrier when the observation starts; the
 * engine then stores them with the run ({@link ObservedTraceContextCapture}).
 */
final class RunlaneTriggerContext extends SenderContext<Map<String, String>> {

    RunlaneTriggerContext() {
        super((carrier, key, value) -> carrier.put(key, value), Kind.PRODUCER);
        setCarrier(new LinkedHashMap<>());
    }
}
