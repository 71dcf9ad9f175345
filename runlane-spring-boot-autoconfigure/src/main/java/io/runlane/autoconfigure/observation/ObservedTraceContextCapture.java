package io.runlane.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import io.runlane.internal.kernel.TraceContextCapture;
import java.util.Map;

/**
 * Captures, for a new run, the propagation headers that the tracer wrote into the enclosing {@code runlane.trigger}
 * observation's carrier ({@link RunlaneTriggerContext}): the trigger's span, so the attempts become its children
 * (S-MO-9). Nothing is captured outside a trigger observation (a schedule's firing, an operator's rerun) or without
 * a tracer.
 */
final class ObservedTraceContextCapture implements TraceContextCapture {

    private final ObservationRegistry registry;

    ObservedTraceContextCapture(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Map<String, String> capture() {
        ObservationView current = registry.getCurrentObservation();
        while (current != null) {
            if (current.getContextView() instanceof RunlaneTriggerContext trigger) {
                return Map.copyOf(trigger.getCarrier());
            }
            current = current.getContextView().getParentObservation();
        }
        return Map.of();
    }
}
