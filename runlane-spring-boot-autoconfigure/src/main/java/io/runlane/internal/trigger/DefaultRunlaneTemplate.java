package io.runlane.internal.trigger;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyOperations;
import io.runlane.RunOperations;
import io.runlane.RunlaneTemplate;
import io.runlane.SingletonConflictException;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerRequest;
import io.runlane.TriggerResult;
import io.runlane.internal.jdbc.Admission;
import io.runlane.internal.jdbc.NewRun;
import io.runlane.internal.jdbc.RunAdmissions;
import io.runlane.internal.registry.KeyRules;
import io.runlane.internal.registry.TaskRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@link RunlaneTemplate} behind the bean: plans each trigger in memory (every check that can fail does so
 * before the database is touched) and hands the result to {@link RunAdmissions}, where the database decides.
 */
public final class DefaultRunlaneTemplate implements RunlaneTemplate {

    private final TaskRegistry tasks;

    private final TriggerPlanner planner;

    private final RunAdmissions admissions;

    private final RunOperations runs;

    private final IdempotencyKeyOperations idempotencyKeys;

    public DefaultRunlaneTemplate(
            TaskRegistry tasks,
            TriggerPlanner planner,
            RunAdmissions admissions,
            RunOperations runs,
            IdempotencyKeyOperations idempotencyKeys) {
        this.tasks = tasks;
        this.planner = planner;
        this.admissions = admissions;
        this.runs = runs;
        this.idempotencyKeys = idempotencyKeys;
    }

    @Override
    public TriggerResult trigger(String taskId, Object payload, TriggerOptions options) {
        return admit(
                planner.plan(tasks.require(KeyRules.requireValid("taskId", taskId)), payload, optionsOrNone(options)));
    }

    @Override
    public <P> TriggerResult trigger(Class<? extends TaskHandler<P>> task, P payload, TriggerOptions options) {
        Objects.requireNonNull(task, "task");
        return admit(planner.plan(tasks.require(task), payload, optionsOrNone(options)));
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
        return admissions.admitAll(planned).stream()
                .map(DefaultRunlaneTemplate::result)
                .toList();
    }

    @Override
    public RunOperations runs() {
        return runs;
    }

    @Override
    public IdempotencyKeyOperations idempotencyKeys() {
        return idempotencyKeys;
    }

    private TriggerResult admit(NewRun run) {
        Admission answer = admissions.admit(run);
        if (answer instanceof Admission.SingletonHeld held) {
            throw new SingletonConflictException(run.taskId(), held.singletonKey(), held.ownerRunId());
        }
        return result(answer);
    }

    private static TriggerResult result(Admission answer) {
        if (answer instanceof Admission.Created created) {
            return new TriggerResult(TriggerOutcome.CREATED, created.run());
        }
        if (answer instanceof Admission.Existing existing) {
            return new TriggerResult(TriggerOutcome.RETURNED_EXISTING, existing.run());
        }
        throw new IllegalStateException("Unreported singleton conflict: " + answer);
    }

    private static TriggerOptions optionsOrNone(TriggerOptions options) {
        return options == null ? TriggerOptions.none() : options;
    }
}
