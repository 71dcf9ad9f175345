package io.runlane.internal.trigger;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyOperations;
import io.runlane.RunOperations;
import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleOperations;
import io.runlane.SignalOperations;
import io.runlane.TaskKeys;
import io.runlane.TriggerOptions;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.registry.TaskRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@link RunlaneTemplate} behind the bean: plans each trigger in memory (every check that can fail does so
 * before the database is touched) and hands the result to the database, which decides (S-TR, S-IK, S-SK).
 */
public final class DefaultRunlaneTemplate implements RunlaneTemplate {

    private final TaskRegistry tasks;

    private final TriggerPlanner planner;

    private final RunAdmitter admitter;

    private final RunOperations runs;

    private final IdempotencyKeyOperations idempotencyKeys;

    private final ScheduleOperations schedules;

    private final SignalOperations signals;

    public DefaultRunlaneTemplate(
            TaskRegistry tasks,
            TriggerPlanner planner,
            RunAdmitter admitter,
            RunOperations runs,
            IdempotencyKeyOperations idempotencyKeys,
            ScheduleOperations schedules,
            SignalOperations signals) {
        this.signals = signals;
        this.tasks = tasks;
        this.planner = planner;
        this.admitter = admitter;
        this.runs = runs;
        this.idempotencyKeys = idempotencyKeys;
        this.schedules = schedules;
    }

    @Override
    public TriggerResult trigger(String taskId, Object payload, TriggerOptions options) {
        return admitter.admit(
                planner.plan(tasks.require(KeyRules.requireValid("taskId", taskId)), payload, orNone(options)));
    }

    @Override
    public <P> TriggerResult trigger(Class<? extends TaskKeys<P>> task, P payload, TriggerOptions options) {
        Objects.requireNonNull(task, "task");
        return admitter.admit(planner.plan(tasks.require(task), payload, orNone(options)));
    }

    @Override
    public List<TriggerResult> triggerAll(List<TriggerRequest> requests) {
        Objects.requireNonNull(requests, "requests");
        List<NewRun> planned = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            TriggerRequest request = requests.get(i);
            if (request == null) {
                throw new ConfigurationInvalidException("requests[" + i + "]", "must not be null");
            }
            String taskId = KeyRules.requireValid("requests[" + i + "].taskId", request.taskId());
            planned.add(planner.plan(tasks.require(taskId), request.payload(), request.options()));
        }
        return admitter.admitAll(planned);
    }

    @Override
    public RunOperations runs() {
        return runs;
    }

    @Override
    public IdempotencyKeyOperations idempotencyKeys() {
        return idempotencyKeys;
    }

    @Override
    public ScheduleOperations schedules() {
        return schedules;
    }

    @Override
    public SignalOperations signals() {
        return signals;
    }

    public static TriggerOptions orNone(TriggerOptions options) {
        return options == null ? TriggerOptions.none() : options;
    }
}
