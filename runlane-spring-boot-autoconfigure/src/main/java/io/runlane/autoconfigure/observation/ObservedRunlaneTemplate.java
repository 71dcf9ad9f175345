package io.runlane.autoconfigure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.runlane.IdempotencyKeyOperations;
import io.runlane.RunOperations;
import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleOperations;
import io.runlane.SignalOperations;
import io.runlane.TaskKeys;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Observes each trigger as {@code runlane.trigger}, current while the run is admitted (so a trace shows the request
 * and then the trigger), with low-cardinality keys only: the task and the outcome, never run ids or keys. Its
 * context is a {@link RunlaneTriggerContext}, whose carrier a tracer fills with the trigger span's propagation
 * headers for the run to store (S-MO-9).
 */
final class ObservedRunlaneTemplate implements RunlaneTemplate {

    static final String NAME = "runlane.trigger";

    /**
     * Every trigger observation has this key, so that metrics backends see one set of keys: the trigger's outcome,
     * {@code error} when it threw, or for a batch its items' common outcome or {@code mixed}.
     */
    private static final String OUTCOME = "runlane.outcome";

    private static final String ERROR = "error";

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
        Observation observation = Observation.createNotStarted(NAME, RunlaneTriggerContext::new, registry)
                .lowCardinalityKeyValue("runlane.task", "batch")
                .lowCardinalityKeyValue(OUTCOME, ERROR)
                .contextualName("runlane trigger batch");
        return observation.observe(() -> {
            List<TriggerResult> results = delegate.triggerAll(requests);
            List<TriggerOutcome> outcomes =
                    results.stream().map(TriggerResult::outcome).distinct().toList();
            observation.lowCardinalityKeyValue(OUTCOME, outcomes.size() == 1 ? name(outcomes.get(0)) : "mixed");
            return results;
        });
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

    @Override
    public SignalOperations signals() {
        return delegate.signals();
    }

    private TriggerResult observe(String task, Supplier<TriggerResult> trigger) {
        Observation observation = Observation.createNotStarted(NAME, RunlaneTriggerContext::new, registry)
                .lowCardinalityKeyValue("runlane.task", task)
                .lowCardinalityKeyValue(OUTCOME, ERROR)
                .contextualName("runlane trigger " + task);
        return observation.observe(() -> {
            TriggerResult result = trigger.get();
            observation.lowCardinalityKeyValue(OUTCOME, name(result.outcome()));
            return result;
        });
    }

    private static String name(TriggerOutcome outcome) {
        return outcome.name().toLowerCase(Locale.ROOT);
    }
}
