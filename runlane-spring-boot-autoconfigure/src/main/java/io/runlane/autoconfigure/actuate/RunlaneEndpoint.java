package io.runlane.autoconfigure.actuate;

import static io.runlane.autoconfigure.actuate.RunlaneEndpointInput.badRequest;
import static io.runlane.autoconfigure.actuate.RunlaneEndpointInput.duration;
import static io.runlane.autoconfigure.actuate.RunlaneEndpointInput.rejectingInvalidInput;
import static io.runlane.autoconfigure.actuate.RunlaneEndpointInput.requireSegment;
import static io.runlane.autoconfigure.actuate.RunlaneEndpointInput.runId;
import static io.runlane.autoconfigure.actuate.RunlaneEndpointInput.sources;
import static io.runlane.autoconfigure.actuate.RunlaneEndpointInput.statuses;

import io.runlane.Page;
import io.runlane.PruneRequest;
import io.runlane.PruneResult;
import io.runlane.Run;
import io.runlane.RunAttempt;
import io.runlane.RunEvent;
import io.runlane.RunOperations;
import io.runlane.RunQuery;
import io.runlane.RunSignal;
import io.runlane.RunStatus;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code runlane} actuator endpoint (S-MO-1): a summary of this application's tasks, the queues (active runs
 * per status, due runs, oldest due age), this instance's worker and maintenance jobs; runs by id and by status; and
 * the operator actions of {@link RunOperations} (cancel, retry, rerun, resume, reset an idempotency key, prune).
 *
 * <p>Default access is read-only, so the actions stay unavailable until {@code
 * management.endpoint.runlane.access=unrestricted} grants them. Over HTTP, under {@code /actuator/runlane}: {@code
 * GET} (summary), {@code GET runs?status=FAILED&limit=20&cursor=…}, {@code GET runs/{id}}, {@code POST
 * runs/{id}/cancel|retry|rerun|resume}, {@code POST idempotency-keys/reset} and {@code POST prune}. Reads of an absent run
 * answer 404; malformed input answers 400 ({@link InvalidEndpointRequestException}). Other failures of the actions
 * propagate as {@link io.runlane.RunlaneException}s; {@link RunlaneEndpointWebExtension} turns them into HTTP
 * statuses.
 */
@Endpoint(id = "runlane", defaultAccess = Access.READ_ONLY)
public final class RunlaneEndpoint {

    static final String RUNS = "runs";

    static final String IDEMPOTENCY_KEYS = "idempotency-keys";

    static final String RESET = "reset";

    static final String PRUNE = "prune";

    static final int DEFAULT_PRUNE_MAX_RUNS = 100_000;

    private final RunlaneEngine engine;

    private final RunlaneSummary summary;

    private final Show showValues;

    /** Creates the endpoint, with payloads masked. */
    public RunlaneEndpoint(
            RunlaneEngine engine,
            @Nullable ExecutionSettings execution,
            @Nullable RunWorker worker,
            @Nullable MaintenanceService recovery,
            @Nullable PruningService pruning) {
        this(engine, execution, worker, recovery, pruning, Show.NEVER);
    }

    /**
     * Creates the endpoint. The worker and the maintenance jobs are the beans of this application instance, or
     * {@code null} when it does not run them; {@code showValues} says when payloads are shown unmasked (over JMX,
     * {@code when-authorized} shows them, as for Boot's endpoints).
     */
    public RunlaneEndpoint(
            RunlaneEngine engine,
            @Nullable ExecutionSettings execution,
            @Nullable RunWorker worker,
            @Nullable MaintenanceService recovery,
            @Nullable PruningService pruning,
            Show showValues) {
        this.showValues = showValues;
        this.engine = engine;
        this.summary = new RunlaneSummary(engine, execution, worker, recovery, pruning);
    }

    /** Tasks, queues, this instance's worker and maintenance jobs. */
    @ReadOperation
    public RunlaneDescriptor summary() {
        return summary.describe();
    }

    /**
     * One page of runs, newest first, filtered by status, task, queue, failure code and source (each a comma-separated
     * list or a repeated parameter; sources are {@link io.runlane.RunSource} names, any case), schedule id, priority
     * range ({@code minPriority}, {@code maxPriority}, inclusive), failure message prefix and idempotency or singleton
     * key prefix (S-OP-1, S-OP-14, S-OP-15); {@code null} (404) for any collection but {@code runs}.
     */
    @ReadOperation
    public @Nullable RunsDescriptor runs(
            @Selector String runs,
            String @Nullable [] status,
            String @Nullable [] task,
            String @Nullable [] queue,
            String @Nullable [] failureCode,
            String @Nullable [] source,
            @Nullable String schedule,
            @Nullable Integer minPriority,
            @Nullable Integer maxPriority,
            @Nullable String failureMessagePrefix,
            @Nullable String idempotencyKeyPrefix,
            @Nullable String singletonKeyPrefix,
            @Nullable Integer limit,
            @Nullable String cursor) {
        return runs(
                runs,
                status,
                task,
                queue,
                failureCode,
                new RunsFilter(
                        source,
                        schedule,
                        minPriority,
                        maxPriority,
                        failureMessagePrefix,
                        idempotencyKeyPrefix,
                        singletonKeyPrefix),
                limit,
                cursor,
                showValues.isShown(true));
    }

    /**
     * The filters of {@code GET runs} added after the first ones (S-OP-14, S-OP-15), each {@code null} when absent.
     */
    record RunsFilter(
            String @Nullable [] source,
            @Nullable String schedule,
            @Nullable Integer minPriority,
            @Nullable Integer maxPriority,
            @Nullable String failureMessagePrefix,
            @Nullable String idempotencyKeyPrefix,
            @Nullable String singletonKeyPrefix) {

        void applyTo(RunQuery.Builder query) {
            query.sources(sources("source", source))
                    .scheduleId(schedule)
                    .failureMessagePrefix(failureMessagePrefix)
                    .idempotencyKeyPrefix(idempotencyKeyPrefix)
                    .singletonKeyPrefix(singletonKeyPrefix);
            if (minPriority != null) {
                query.minPriority(minPriority);
            }
            if (maxPriority != null) {
                query.maxPriority(maxPriority);
            }
        }
    }

    @Nullable
    RunsDescriptor runs(
            String runs,
            String @Nullable [] status,
            String @Nullable [] task,
            String @Nullable [] queue,
            String @Nullable [] failureCode,
            RunsFilter filter,
            @Nullable Integer limit,
            @Nullable String cursor,
            boolean showValues) {
        if (!RUNS.equals(runs)) {
            return null;
        }
        RunQuery.Builder query = RunQuery.builder()
                .statuses(statuses("status", status, EnumSet.noneOf(RunStatus.class)))
                .limit((limit != null) ? limit : RunQuery.DEFAULT_LIMIT)
                .cursor(cursor);
        if (task != null) {
            query.taskIds(task);
        }
        if (queue != null) {
            query.queues(queue);
        }
        if (failureCode != null) {
            query.failureCodes(failureCode);
        }
        filter.applyTo(query);
        Page<Run> page = rejectingInvalidInput(() -> operations().list(query.build()));
        return new RunsDescriptor(
                page.items().stream()
                        .map(run -> RunValues.shownOrMasked(run, showValues))
                        .toList(),
                page.nextCursor());
    }

    /** A run with its attempts and events; {@code null} (404) when there is no such run. */
    @ReadOperation
    public @Nullable RunDescriptor run(@Selector String runs, @Selector String runId) {
        return run(runs, runId, showValues.isShown(true));
    }

    @Nullable
    RunDescriptor run(String runs, String runId, boolean showValues) {
        if (!RUNS.equals(runs)) {
            return null;
        }
        return operations()
                .get(runId(runId))
                .map(run -> describe(run, showValues))
                .orElse(null);
    }

    /**
     * Cancels, retries, reruns or resumes a run ({@code action} is {@code cancel}, {@code retry}, {@code rerun} or
     * {@code resume}); answers the cancelled run, the new run of a retry or rerun, or the run resumed in place (S-RV-1).
     *
     * @throws io.runlane.RunNotFoundException when there is no such run
     * @throws io.runlane.RunStateException when the run's status does not allow the action
     * @throws io.runlane.IdempotencyKeyActiveException when another run now owns the key of the run to resume
     * @throws io.runlane.SingletonConflictException when another active run holds the singleton key of the run to
     *     resume
     */
    @WriteOperation
    public RunDescriptor runAction(
            @Selector String runs, @Selector String runId, @Selector String action, @Nullable String reason) {
        return runAction(runs, runId, action, reason, showValues.isShown(true));
    }

    RunDescriptor runAction(String runs, String runId, String action, @Nullable String reason, boolean showValues) {
        requireSegment(RUNS, runs);
        UUID id = runId(runId);
        Run result = switch (action) {
            case "cancel" -> operations().cancel(id, reason);
            case "retry" -> operations().retry(id);
            case "rerun" -> operations().rerun(id);
            case "resume" -> operations().resume(id);
            default ->
                throw badRequest("Unknown run action '" + action + "'; use cancel, retry, rerun or resume", null);
        };
        return describe(result, showValues);
    }

    /**
     * Resets an idempotency key of a task (S-IK-8): a retained terminal owner is forgotten so the next trigger creates
     * a new run.
     *
     * @throws io.runlane.IdempotencyKeyActiveException when the owner is still active
     * @throws io.runlane.TaskNotFoundException when the application has no such task
     */
    @WriteOperation
    public KeyResetDescriptor idempotencyKeys(
            @Selector String idempotencyKeys, @Selector String action, String taskId, String key) {
        requireSegment(IDEMPOTENCY_KEYS, idempotencyKeys);
        requireSegment(RESET, action);
        boolean reset =
                rejectingInvalidInput(() -> engine.template().idempotencyKeys().reset(taskId, key));
        return new KeyResetDescriptor(taskId, key, reset);
    }

    /**
     * Prunes terminal runs that finished longer ago than {@code olderThan} (such as {@code 7d}, {@code 12h} or an
     * ISO-8601 duration), of the given {@code statuses} (a comma-separated list; default: every terminal status)
     * (S-OP-3). One call deletes at most {@code maxRuns} runs (default {@value #DEFAULT_PRUNE_MAX_RUNS}) so that a
     * request ends in reasonable time; {@code complete: false} in the answer says more runs match.
     */
    @WriteOperation
    public PruneDescriptor prune(
            @Selector String prune, String olderThan, String @Nullable [] statuses, @Nullable Integer maxRuns) {
        requireSegment(PRUNE, prune);
        Duration age = duration("olderThan", olderThan);
        Set<RunStatus> pruned =
                statuses("statuses", statuses, EnumSet.of(RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED));
        PruneResult result = rejectingInvalidInput(() -> operations()
                .prune(PruneRequest.olderThan(age)
                        .withStatuses(pruned.toArray(RunStatus[]::new))
                        .withMaxRuns((maxRuns != null) ? maxRuns : DEFAULT_PRUNE_MAX_RUNS)));
        return new PruneDescriptor(result.runs(), result.batches(), result.complete());
    }

    private RunOperations operations() {
        return engine.template().runs();
    }

    private RunDescriptor describe(Run run, boolean showValues) {
        return new RunDescriptor(
                RunValues.shownOrMasked(run, showValues),
                RunValues.failureStack(engine.reads().failureStack(run), showValues),
                operations().attempts(run.id()),
                operations().events(run.id()),
                operations().signals(run.id()).stream()
                        .map(signal -> RunValues.shownOrMasked(signal, showValues))
                        .toList());
    }

    /**
     * The summary.
     *
     * @param environment the environment that scopes every run
     * @param tasks the tasks this application declares
     * @param queues the declared queues and any queue with active runs, by name
     * @param worker this instance's worker, or {@code null} when it runs none
     * @param maintenance this instance's maintenance jobs
     */
    public record RunlaneDescriptor(
            String environment,
            List<TaskDescriptor> tasks,
            Map<String, QueueDescriptor> queues,
            @Nullable WorkerDescriptor worker,
            MaintenanceDescriptor maintenance)
            implements OperationResponseBody {}

    /**
     * A task's policy, with configured defaults applied.
     *
     * @param id the task id
     * @param queue the queue its runs go to
     * @param maxAttempts the attempt budget
     * @param idempotencyKeyTtl the retention of a finished owner's key, such as {@code 24h} or {@code active}
     * @param rateLimit the task's rate limit (S-RT-1), or {@code null} when it has none
     * @param priority the priority of its runs unless a trigger sets one (S-PR-1)
     * @param throttle the task's throttle (S-TH-1), or {@code null} when it has none
     */
    public record TaskDescriptor(
            String id,
            String queue,
            int maxAttempts,
            String idempotencyKeyTtl,
            @Nullable RateLimitDescriptor rateLimit,
            int priority,
            @Nullable ThrottleDescriptor throttle) {}

    /**
     * A task's throttle (S-TH-1).
     *
     * @param limit the attempt starts allowed per throttle key in any window
     * @param period the window, as an ISO-8601 duration such as {@code PT1S}
     */
    public record ThrottleDescriptor(int limit, String period) {}

    /**
     * A task's rate limit (S-RT-1).
     *
     * @param limit the runs created per key in any window
     * @param period the window, as an ISO-8601 duration such as {@code PT1H}
     */
    public record RateLimitDescriptor(int limit, String period) {}

    /**
     * A queue's active runs.
     *
     * @param counts active runs per status
     * @param waiting runs waiting for a worker, due or not
     * @param due waiting runs that are due now
     * @param oldestDueAge how long the oldest due run has waited (ISO-8601), or {@code null} when none is due
     * @param concurrencyLimit the queue's limit across all instances, or {@code null} when unlimited
     */
    public record QueueDescriptor(
            Map<RunStatus, Long> counts,
            long waiting,
            long due,
            @Nullable String oldestDueAge,
            @Nullable Integer concurrencyLimit) {}

    /**
     * This instance's worker.
     *
     * @param id the worker id recorded in leases and events
     * @param running whether it is claiming runs
     * @param inFlight attempts running now
     * @param concurrency the most attempts it runs at once
     * @param lastPoll when it last claimed successfully
     * @param lastPollFailure the message of the last failed poll, cleared by the next successful one
     */
    public record WorkerDescriptor(
            String id,
            boolean running,
            int inFlight,
            @Nullable Integer concurrency,
            @Nullable Instant lastPoll,
            @Nullable String lastPollFailure) {}

    /**
     * This instance's maintenance jobs; a job is {@code null} when it is disabled here.
     *
     * @param recovery lease recovery (S-EX-7)
     * @param pruning the automatic pruning job (S-OP-4)
     */
    public record MaintenanceDescriptor(
            @Nullable RecoveryDescriptor recovery, @Nullable PruningDescriptor pruning) {}

    /**
     * Lease recovery.
     *
     * @param running whether it is scheduled
     * @param lastRun when it last completed
     */
    public record RecoveryDescriptor(
            boolean running, @Nullable Instant lastRun) {}

    /**
     * The automatic pruning job.
     *
     * @param running whether it is scheduled
     * @param lastRun when it last completed
     * @param lastPruned runs its last tick deleted
     */
    public record PruningDescriptor(
            boolean running, @Nullable Instant lastRun, long lastPruned) {}

    /**
     * A page of runs.
     *
     * @param runs the runs, newest first
     * @param nextCursor the {@code cursor} of the next page, or {@code null} on the last page
     */
    public record RunsDescriptor(List<Run> runs, @Nullable String nextCursor) implements OperationResponseBody {}

    /**
     * A run with its history.
     *
     * @param run the run
     * @param failureStack the stack trace stored with its failure (S-EX-35), {@code ******} unless values are shown,
     *     or {@code null} when its failure has none
     * @param attempts its attempts
     * @param events its events
     * @param signals its signals, with their consumption (S-SG-5)
     */
    public record RunDescriptor(
            Run run,
            @Nullable String failureStack,
            List<RunAttempt> attempts,
            List<RunEvent> events,
            List<RunSignal> signals)
            implements OperationResponseBody {}

    /**
     * The answer to an idempotency key reset.
     *
     * @param taskId the task
     * @param key the key
     * @param reset whether a retained owner was cleared ({@code false}: the key had no owner)
     */
    public record KeyResetDescriptor(String taskId, String key, boolean reset) implements OperationResponseBody {}

    /**
     * The answer to a prune.
     *
     * @param runs runs deleted
     * @param batches transactions used
     * @param complete whether no matching run was left
     */
    public record PruneDescriptor(long runs, int batches, boolean complete) implements OperationResponseBody {}
}
