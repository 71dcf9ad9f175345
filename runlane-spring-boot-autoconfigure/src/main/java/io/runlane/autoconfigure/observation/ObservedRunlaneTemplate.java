package io.runlane.autoconfigure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.runlane.IdempotencyKeyOperations;
import io.runlane.RunOperations;
import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleOperations;
import io.runlane.TaskKeys;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Observes each trigger as {@code runlane.trigger}, current while the run is admitted (so a trace shows the request
 * and then the trigger), with low-cardinality keys only: the task and the outcome, never run ids or keys.
 */
final class ObservedRunlaneTemplate implements RunlaneTemplate {

    static final String NAME = "runlane.trigger";

    private final RunlaneTemplate delegate;

    private final ObservationRegistry registry;

    ObservedRunlaneTemplate(RunlaneTemplate delegate, ObservationRegistry registry) {
        this.delegate = delegate;
        this.registry = registry;
    }

    @Override
    public TriggerResult trigger(String taskId, Object payload, TriggerOptions options) {
        return observe(taskId, () -> delegate.trigger(taskId, payload, options));
    }

    @Override
    public <P> TriggerResult trigger(Class<? extends TaskKeys<P>> task, P payload, TriggerOptions options) {
        return observe(task.getName(), () -> delegate.trigger(task, payload, options));
    }

    @Override
    public List<TriggerResult> triggerAll(List<TriggerRequest> requests) {
        Observation observation = Observation.createNotStarted(NAME, registry)
                .lowCardinalityKeyValue("runlane.task", "batch")
                .contextualName("runlane trigger batch");
        return observation.observe(() -> delegate.triggerAll(requests));
    }

    @Override
    public RunOperations runs() {
        return delegate.runs();
    }

    @Override
    public IdempotencyKeyOperations idempotencyKeys() {
        return delegate.idempotencyKeys();
    }

    @Override
    public ScheduleOperations schedules() {
        return delegate.schedules();
    }

    private TriggerResult observe(String task, Supplier<TriggerResult> trigger) {
        Observation observation = Observation.createNotStarted(NAME, registry)
                .lowCardinalityKeyValue("runlane.task", task)
                .contextualName("runlane trigger " + task);
        return observation.observe(() -> {
            TriggerResult result = trigger.get();
            observation.lowCardinalityKeyValue(
                    "runlane.outcome", result.outcome().name().toLowerCase(Locale.ROOT));
            return result;
        });
    }
}
