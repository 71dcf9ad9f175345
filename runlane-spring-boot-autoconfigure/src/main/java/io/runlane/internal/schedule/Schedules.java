package io.runlane.internal.schedule;

import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleOperations;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.internal.kernel.SqlTemplate;
import io.runlane.internal.lifecycle.RunTransitions;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The schedules concern of one engine (S-SC): the operators' API, the firer and the start-up synchronisation of
 * declared schedules.
 */
public final class Schedules {

    private static final Log logger = LogFactory.getLog(Schedules.class);

    private final ScheduleStore store;

    private final ScheduleValidator validator;

    private final TransactionTemplate transactions;

    private final ScheduleFirer firer;

    private final ScheduleOperations operations;

    private final ScheduleSettings settings;

    /**
     * Creates the concern. The template is looked up on use, because the template itself exposes these operations.
     */
    public Schedules(
            JdbcClient jdbc,
            SqlTemplate sql,
            String environment,
            TransactionTemplate transactions,
            Supplier<RunlaneTemplate> template,
            TaskRegistry tasks,
            PayloadCodec payloads,
            RunTransitions transitions,
            ScheduleSettings settings,
            EngineListener listener) {
        this.store = new ScheduleStore(jdbc, sql, environment);
        this.validator = new ScheduleValidator(tasks, payloads);
        this.transactions = transactions;
        this.settings = settings;
        this.firer = new ScheduleFirer(store, transactions, template, tasks, payloads, transitions, settings, listener);
        this.operations = new DefaultScheduleOperations(store, validator, transactions, template, payloads, firer);
    }

    public ScheduleOperations operations() {
        return operations;
    }

    /** The firer; a lifecycle, not started until its lifecycle starts it. */
    public ScheduleFirer firer() {
        return firer;
    }

    public ScheduleSettings settings() {
        return settings;
    }

    /**
     * Writes the application's declared schedules (S-SC-1, S-SC-8). Every declaration is validated before anything
     * is written, so one bad declaration fails start-up with nothing changed. A declaration keeps its stored next
     * fire time unless its expression, interval or zone changed; {@code enabled=false} withdraws it (its row is
     * deleted, its runs stay). Declared schedules in the database that this application no longer declares are
     * logged, never deleted: another version of the application may still declare them. An application that declares
     * no schedule does not touch the database here, so it starts even before Runlane's schema exists.
     */
    public void synchronizeDeclared(List<ScheduleDeclaration> declarations) {
        if (declarations.isEmpty()) {
            return;
        }
        List<ValidSchedule> enabled = new ArrayList<>();
        List<String> disabled = new ArrayList<>();
        for (ScheduleDeclaration declaration : declarations) {
            if (declaration.enabled()) {
                enabled.add(validator.validate(declaration));
            } else {
                disabled.add(declaration.id());
            }
        }
        transactions.executeWithoutResult(status -> {
            Instant now = store.now();
            for (ValidSchedule schedule : enabled) {
                store.upsert(schedule, true, schedule.recurrence().first(now));
            }
            for (String id : disabled) {
                store.find(id).filter(StoredSchedule::declared).ifPresent(stored -> store.delete(id));
            }
        });
        Set<String> declared =
                declarations.stream().map(ScheduleDeclaration::id).collect(Collectors.toSet());
        List<String> undeclared = store.all().stream()
                .filter(stored -> stored.declared() && !declared.contains(stored.id()))
                .map(StoredSchedule::id)
                .toList();
        if (!undeclared.isEmpty()) {
            logger.warn("Runlane schedules " + undeclared + " are declared in the database but no longer by this"
                    + " application; they keep firing while another instance declares their task. Delete them with"
                    + " RunlaneTemplate.schedules().delete(id) or the runlane endpoint if they are gone for good.");
        }
    }

    /** Unpaused schedules overdue by more than the given number of poll intervals, for health (S-SC-5). */
    public List<String> overdue(int polls) {
        return store.overdue(settings.pollInterval().multipliedBy(polls));
    }
}
