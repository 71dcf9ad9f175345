package io.runlane.internal.operations;

import io.runlane.BulkResult;
import io.runlane.ConfigurationInvalidException;
import io.runlane.InvalidKeyException;
import io.runlane.Page;
import io.runlane.PruneRequest;
import io.runlane.PruneResult;
import io.runlane.Run;
import io.runlane.RunAttempt;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunNotFoundException;
import io.runlane.RunOperations;
import io.runlane.RunQuery;
import io.runlane.RunSignal;
import io.runlane.RunStateException;
import io.runlane.RunStatus;
import io.runlane.RunStep;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.AfterCommit;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.kernel.PriorityRules;
import io.runlane.internal.kernel.TimeRules;
import io.runlane.internal.lifecycle.RunTransitions;
import io.runlane.internal.maintenance.PrunePass;
import io.runlane.internal.maintenance.RunPruner;
import io.runlane.internal.query.RunListing;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.result.RunResults;
import io.runlane.internal.signal.SignalMailbox;
import io.runlane.internal.step.StepStore;
import io.runlane.internal.trigger.DefaultRunlaneTemplate;
import io.runlane.internal.trigger.NewRun;
import io.runlane.internal.trigger.RunAdmitter;
import io.runlane.internal.trigger.TriggerPlanner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionTemplate;

/** Operator reads and actions on runs, scoped to the configured environment (S-OP, S-CA). */
public final class DefaultRunOperations implements RunOperations {

    static final String OPERATOR = "operator";

    /**
     * The events that end an attempt, each written by the statement that ends it: an outcome (S-EX-3..7), a
     * release (S-EX-6), a durable wait (S-ST-7, S-RS-4, S-SG-4), lease recovery (S-EX-7) or a cancellation that
     * ends it (S-CA-2, S-CA-5). The console pages attempts by the same types ({@code run_events_attempts_idx}).
     */
    public static final Set<RunEventType> ATTEMPT_ENDINGS = Collections.unmodifiableSet(EnumSet.of(
            RunEventType.SUCCEEDED,
            RunEventType.RETRY_SCHEDULED,
            RunEventType.RELEASED,
            RunEventType.FAILED,
            RunEventType.CANCELLED,
            RunEventType.LEASE_EXPIRED,
            RunEventType.WAITING));

    /** The endings that park the run: the next attempt resumes it without spending budget (S-EX-6, S-ST-10). */
    public static final Set<RunEventType> PARKINGS =
            Collections.unmodifiableSet(EnumSet.of(RunEventType.RELEASED, RunEventType.WAITING));

    static final String RERUN = "RERUN";

    static final String RETRY = "RETRY";

    private final RunReads reads;

    private final RunListing listing;

    private final RunTransitions transitions;

    private final PrunePass prunePass;

    private final TaskRegistry tasks;

    private final TriggerPlanner planner;

    private final RunAdmitter admitter;

    private final EngineListener listener;

    private final RunResults results;

    private final StepStore steps;

    private final SignalMailbox signals;

    private final RunResumption resumption;

    private final RunForks forks;
    private final BulkRecovery bulk;

    public DefaultRunOperations(
            RunReads reads,
            RunListing listing,
            RunTransitions transitions,
            RunPruner pruner,
            TaskRegistry tasks,
            TriggerPlanner planner,
            RunAdmitter admitter,
            EngineListener listener,
            RunResults results,
            StepStore steps,
            SignalMailbox signals,
            DueRunNotifier notifier,
            TransactionTemplate transactions) {
        this.resumption = new RunResumption(transitions, reads, tasks, notifier);
        this.forks = new RunForks(reads, steps, admitter, transactions);
        this.bulk = new BulkRecovery(listing, reads, transitions, resumption, tasks, transactions, notifier, listener);
        this.signals = signals;
        this.results = results;
        this.steps = steps;
        this.reads = reads;
        this.listing = listing;
        this.transitions = transitions;
        this.prunePass = new PrunePass(pruner);
        this.tasks = tasks;
        this.planner = planner;
        this.admitter = admitter;
        this.listener = listener;
    }

    @Override
    public Optional<Run> get(UUID runId) {
        return reads.get(Objects.requireNonNull(runId, "runId"));
    }

    @Override
    public Page<Run> list(RunQuery query) {
        Objects.requireNonNull(query, "query");
        validateFilters(query);
        return listing.list(query);
    }

    static void validateFilters(RunQuery query) {
        query.taskIds().forEach(taskId -> KeyRules.requireValid("taskIds", taskId));
        query.queues().forEach(queue -> KeyRules.requireValid("queues", queue));
        KeyRules.requireValidOrNull("idempotencyKey", query.idempotencyKey());
        KeyRules.requireValidOrNull("singletonKey", query.singletonKey());
        query.failureCodes().forEach(code -> KeyRules.requireValid("failureCodes", code));
        KeyRules.requireValidOrNull("scheduleId", query.scheduleId());
        validatePriorities(query.minPriority(), query.maxPriority());
        validateMessagePrefix(query.failureMessagePrefix());
        validateKeyPrefix("idempotencyKeyPrefix", query.idempotencyKeyPrefix());
        validateKeyPrefix("singletonKeyPrefix", query.singletonKeyPrefix());
    }

    /** S-OP-15: each bound a priority (S-PR-1), the lower not above the upper. */
    private static void validatePriorities(@Nullable Integer min, @Nullable Integer max) {
        if (min != null) {
            PriorityRules.requireValid("minPriority", min);
        }
        if (max != null) {
            PriorityRules.requireValid("maxPriority", max);
        }
        if (min != null && max != null && min > max) {
            throw new ConfigurationInvalidException(
                    "maxPriority", "must not be below minPriority " + min + ", but was " + max);
        }
    }

    /** S-OP-15: a message prefix has a character that is not whitespace, and is no longer than a stored message. */
    private static void validateMessagePrefix(@Nullable String prefix) {
        if (prefix == null) {
            return;
        }
        if (prefix.isBlank()) {
            throw new ConfigurationInvalidException("failureMessagePrefix", "must not be empty or blank");
        }
        int length = prefix.codePointCount(0, prefix.length());
        if (length > RunQuery.MAX_MESSAGE_PREFIX_LENGTH) {
            throw new ConfigurationInvalidException(
                    "failureMessagePrefix",
                    "must be at most " + RunQuery.MAX_MESSAGE_PREFIX_LENGTH + " characters, but has " + length);
        }
    }

    /**
     * S-OP-15: a key prefix is the start of a valid key (S-ID-1): not blank, at most a key's length, no {@code :}, no
     * control character, no leading whitespace. It may end with whitespace, which a key may hold inside.
     */
    private static void validateKeyPrefix(String field, @Nullable String prefix) {
        if (prefix == null) {
            return;
        }
        if (prefix.isBlank()) {
            throw new InvalidKeyException(field, "must not be empty or blank");
        }
        int length = prefix.codePointCount(0, prefix.length());
        if (length > KeyRules.MAX_LENGTH) {
            throw new InvalidKeyException(
                    field, "must be at most " + KeyRules.MAX_LENGTH + " characters, but has " + length);
        }
        KeyRules.requireValid(field, prefix.stripTrailing());
    }

    @Override
    public List<RunEvent> events(UUID runId) {
        List<RunEvent> events = reads.events(Objects.requireNonNull(runId, "runId"));
        if (events.isEmpty()) {
            throw new RunNotFoundException(runId);
        }
        return events;
    }

    /**
     * Pairs each CLAIMED event with the event that ended its attempt: one of {@link #ATTEMPT_ENDINGS}; the steps,
     * signal consumptions and cancellation requests an attempt records meanwhile are written while it runs and end
     * nothing. A claim handed back before its handler started is no attempt (S-EX-17). An attempt claimed after the
     * attempt before it ended by parking the run ({@link #PARKINGS}) is a resumption (S-EX-34).
     */
    @Override
    public List<RunAttempt> attempts(UUID runId) {
        List<RunAttempt> attempts = new ArrayList<>();
        RunAttempt open = null;
        boolean parked = false;
        for (RunEvent event : events(runId)) {
            if (event.type() == RunEventType.CLAIMED) {
                open = new RunAttempt(
                        runId, attempts.size() + 1, event.actor(), event.createdAt(), null, null, null, null, parked);
                attempts.add(open);
            } else if (open != null && event.type() == RunEventType.HANDED_BACK) {
                attempts.remove(attempts.size() - 1);
                open = null;
            } else if (open != null && ATTEMPT_ENDINGS.contains(event.type())) {
                attempts.set(
                        attempts.size() - 1,
                        new RunAttempt(
                                runId,
                                open.attempt(),
                                open.worker(),
                                open.startedAt(),
                                event.createdAt(),
                                event.status(),
                                event.type(),
                                event.detail(),
                                open.resumption()));
                parked = PARKINGS.contains(event.type());
                open = null;
            }
        }
        return attempts;
    }

    @Override
    public Optional<Run> findActive(String taskId, @Nullable String idempotencyKey, @Nullable String singletonKey) {
        KeyRules.requireValid("taskId", taskId);
        if (idempotencyKey == null && singletonKey == null) {
            throw new InvalidKeyException("idempotencyKey", "or singletonKey must be given");
        }
        KeyRules.requireValidOrNull("idempotencyKey", idempotencyKey);
        KeyRules.requireValidOrNull("singletonKey", singletonKey);
        return reads.findActive(taskId, idempotencyKey, singletonKey);
    }

    @Override
    public Optional<Run> findCurrent(String taskId, String idempotencyKey) {
        KeyRules.requireValid("taskId", taskId);
        KeyRules.requireValid("idempotencyKey", idempotencyKey);
        return reads.findCurrentOwner(taskId, idempotencyKey);
    }

    @Override
    public Run cancel(UUID runId, @Nullable String reason) {
        Objects.requireNonNull(runId, "runId");
        Optional<Run> cancelled = transitions.cancel(runId, OPERATOR, reason);
        cancelled
                .filter(run -> run.status().isTerminal())
                .ifPresent(run -> AfterCommit.run(() -> listener.runEnded(run.id(), run.status())));
        return cancelled.or(() -> reads.get(runId)).orElseThrow(() -> new RunNotFoundException(runId));
    }

    @Override
    public <R> Optional<R> result(UUID runId, Class<R> type) {
        return results.result(runId, type);
    }

    @Override
    public <R> R awaitResult(UUID runId, Class<R> type, Duration timeout) {
        return results.awaitResult(runId, type, timeout);
    }

    @Override
    public List<RunStep> steps(UUID runId) {
        require(runId);
        return steps.list(runId);
    }

    @Override
    public List<RunSignal> signals(UUID runId) {
        require(runId);
        return signals.list(runId);
    }

    @Override
    public Run resume(UUID runId) {
        return resumption.resume(runId, OPERATOR);
    }

    @Override
    public Run fork(UUID runId, @Nullable String fromStep, TriggerOptions options) {
        return forks.fork(runId, fromStep, options, (source, given) -> plan(source, StepStore.FORK, given));
    }

    @Override
    public BulkResult resumeAll(RunQuery query, int maxRuns) {
        return bulk.resumeAll(query, maxRuns);
    }

    @Override
    public BulkResult cancelAll(RunQuery query, int maxRuns) {
        return bulk.cancelAll(query, maxRuns);
    }

    @Override
    public Run rerun(UUID runId, TriggerOptions options) {
        Run source = require(runId);
        if (!source.status().isTerminal()) {
            throw new RunStateException(
                    runId,
                    source.status(),
                    "only a terminal run can be rerun (S-OP-2, " + Guarantees.link("S-OP-2") + ")");
        }
        return derive(source, RERUN, options);
    }

    @Override
    public Run retry(UUID runId, TriggerOptions options) {
        Run source = require(runId);
        if (source.status() != RunStatus.FAILED) {
            throw new RunStateException(
                    runId,
                    source.status(),
                    "only a FAILED run can be retried (S-OP-2, " + Guarantees.link("S-OP-2") + ")");
        }
        return derive(source, RETRY, options);
    }

    private Run derive(Run source, String sourceType, TriggerOptions options) {
        return admitter.admit(plan(source, sourceType, options)).run();
    }

    private NewRun plan(Run source, String sourceType, TriggerOptions options) {
        return planner.planDerived(
                tasks.require(source.taskId()),
                source.payloadJson(),
                inheritingPartition(source, DefaultRunlaneTemplate.orNone(options)),
                sourceType,
                source.id());
    }

    /**
     * S-OP-9, S-QC-3: the new run stays in its source's queue and concurrency partition unless the options name
     * others, so a rerun cannot escape the limit its source ran under. A source queue that is no longer declared
     * fails the call like any undeclared queue (S-QC-1); the caller may then name a queue in the options. It keeps
     * its source's priority too, unless the options name one (S-PR-3). A rate-limit key in the options is the one the
     * new run counts under (S-RT-3), a throttle key the one its attempts start under (S-TH-1); without them the task's
     * resolvers give them from the payload. A debounce key in the options debounces the new run like a trigger with
     * it (S-DB-1); without one it is not debounced.
     */
    private static TriggerOptions inheritingPartition(Run source, TriggerOptions options) {
        return TriggerOptions.builder()
                .idempotencyKey(options.idempotencyKey())
                .idempotencyKeyTtl(options.idempotencyKeyTtl())
                .singletonKey(options.singletonKey())
                .concurrencyKey(options.concurrencyKey() != null ? options.concurrencyKey() : source.concurrencyKey())
                .queue(options.queue() != null ? options.queue() : source.queue())
                .delay(options.delay())
                .runAt(options.runAt())
                .onSingletonConflict(options.onSingletonConflict())
                .signalName(options.signalName())
                .priority(options.priority() != null ? options.priority() : source.priority())
                .rateLimitKey(options.rateLimitKey())
                .throttleKey(options.throttleKey())
                .debounceKey(options.debounceKey())
                .debounce(options.debounce())
                .debounceMaxWait(options.debounceMaxWait())
                .build();
    }

    @Override
    public PruneResult prune(PruneRequest request) {
        Objects.requireNonNull(request, "request");
        TimeRules.requireDuration("olderThan", request.olderThan());
        long deleted = 0;
        int batches = 0;
        boolean complete = true;
        for (RunStatus status : request.statuses()) {
            PrunePass.Result pass =
                    prunePass.prune(status, request.olderThan(), request.batchSize(), request.maxRuns() - deleted);
            deleted += pass.deleted();
            batches += pass.batches();
            complete &= pass.complete();
        }
        if (deleted > 0) {
            listener.runsPruned(deleted, false);
        }
        return new PruneResult(deleted, batches, complete);
    }

    private Run require(UUID runId) {
        return reads.get(Objects.requireNonNull(runId, "runId")).orElseThrow(() -> new RunNotFoundException(runId));
    }
}
