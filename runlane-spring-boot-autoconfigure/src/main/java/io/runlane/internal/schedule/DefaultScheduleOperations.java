package io.runlane.internal.schedule;

import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleDeclaredException;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInfo;
import io.runlane.ScheduleNotFoundException;
import io.runlane.ScheduleOperations;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinition;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The operators' API for schedules (S-SC-5). Run-time schedules are validated in full before the one statement that
 * writes them; a declared schedule is changed only by its declaration (S-SC-8).
 */
final class DefaultScheduleOperations implements ScheduleOperations {

    private final ScheduleStore store;

    private final ScheduleValidator validator;

    private final TransactionTemplate transactions;

    private final Supplier<RunlaneTemplate> template;

    private final PayloadCodec payloads;

    private final ScheduleFirer firer;

    DefaultScheduleOperations(
            ScheduleStore store,
            ScheduleValidator validator,
            TransactionTemplate transactions,
            Supplier<RunlaneTemplate> template,
            PayloadCodec payloads,
            ScheduleFirer firer) {
        this.store = store;
        this.validator = validator;
        this.transactions = transactions;
        this.template = template;
        this.payloads = payloads;
        this.firer = firer;
    }

    @Override
    public List<ScheduleInfo> list() {
        return store.all().stream().map(StoredSchedule::info).toList();
    }

    @Override
    public Optional<ScheduleInfo> get(String id) {
        return id == null ? Optional.empty() : store.find(id).map(StoredSchedule::info);
    }

    @Override
    public ScheduleInfo upsert(ScheduleDefinition definition) {
        Objects.requireNonNull(definition, "definition");
        ValidSchedule schedule = validator.validate(definition);
        Boolean written = transactions.execute(status -> {
            Instant now = store.now();
            return store.upsert(schedule, false, schedule.recurrence().first(now));
        });
        if (!Boolean.TRUE.equals(written)) {
            throw new ScheduleDeclaredException(schedule.id());
        }
        firer.wake();
        return require(schedule.id()).info();
    }

    @Override
    public boolean delete(String id) {
        return store.delete(KeyRules.requireValid("id", id));
    }

    @Override
    public void pause(String id) {
        if (!store.setPaused(KeyRules.requireValid("id", id), true)) {
            throw new ScheduleNotFoundException(id);
        }
    }

    @Override
    public void resume(String id) {
        if (!store.setPaused(KeyRules.requireValid("id", id), false)) {
            throw new ScheduleNotFoundException(id);
        }
        firer.wake();
    }

    @Override
    public TriggerResult triggerNow(String id) {
        StoredSchedule schedule = require(KeyRules.requireValid("id", id));
        RunlaneTemplate runlane = template.get();
        TaskDefinition task = validator.task(schedule.id(), schedule.taskId());
        Object payload = payloads.fromJson(task, schedule.payloadJson());
        TriggerResult result = transactions.execute(status -> {
            TriggerResult triggered = runlane.trigger(task.id(), payload, TriggerOptions.none());
            if (!triggered.created()) {
                return triggered;
            }
            return store.recordRun(schedule.id(), triggered.runId())
                    .map(run -> new TriggerResult(triggered.outcome(), run))
                    .orElse(triggered);
        });
        return Objects.requireNonNull(result, "result");
    }

    private StoredSchedule require(String id) {
        return store.find(id).orElseThrow(() -> new ScheduleNotFoundException(id));
    }
}
