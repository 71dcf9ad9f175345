package io.runlane.internal.operations;

import io.runlane.BulkResult;
import io.runlane.ConfigurationInvalidException;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.AfterCommit;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.lifecycle.RunTransitions;
import io.runlane.internal.query.RunListing;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.registry.TaskRegistry;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Resumes or cancels the runs a {@link RunQuery} selects (S-RV-4):
 *
 * <ol>
 *   <li>read the next window of at most {@value #WINDOW} matching runs, newest first, without locks, from where the
 *       previous window ended (as {@code runs().list} pages), only in the statuses the action applies to;
 *   <li>act on each run of the window in a transaction of its own: lock it with {@code FOR UPDATE SKIP LOCKED}, so
 *       that a run another transaction holds (a worker's claim or completion, another operator) is skipped as {@value
 *       BulkResult#LOCKED} instead of waited for, then apply the single-run statement ({@link RunTransitions#resume},
 *       {@link RunTransitions#cancel}), which decides exactly as it would for one run;
 *   <li>when that statement changed nothing, read the run again to name the reason: the code of the exception a
 *       single call would have failed with.
 * </ol>
 *
 * One run's refusal never stops the others, and one call acts on a run at most once: the windows move strictly down
 * the run ids, and a resumed run keeps its id. Each run commits on its own, so a call that fails midway (the database
 * went away) leaves every run either acted on or untouched, never half-resumed; calling again continues.
 */
final class BulkRecovery {

    static final int WINDOW = 100;

    /** What {@code resumeAll} applies to (S-RV-1). */
    static final Set<RunStatus> RESUMABLE =
            Collections.unmodifiableSet(EnumSet.of(RunStatus.FAILED, RunStatus.CANCELLED));

    /** What {@code cancelAll} applies to: the active statuses of a run not yet asked to stop (S-CA-1, S-CA-2). */
    static final Set<RunStatus> CANCELLABLE = Collections.unmodifiableSet(EnumSet.of(
            RunStatus.QUEUED,
            RunStatus.SCHEDULED,
            RunStatus.RETRYING,
            RunStatus.RELEASED,
            RunStatus.WAITING,
            RunStatus.RUNNING));

    static final String CANCEL_REASON = "cancelled in bulk";

    private static final String RUN_NOT_FOUND = "run_not_found";

    private static final String RUN_STATE_INVALID = "run_state_invalid";

    private static final String TASK_NOT_FOUND = "task_not_found";

    private final RunListing listing;

    private final RunReads reads;

    private final RunTransitions transitions;

    private final RunResumption resumption;

    private final TaskRegistry tasks;

    private final TransactionTemplate transactions;

    private final DueRunNotifier notifier;

    private final EngineListener listener;

    BulkRecovery(
            RunListing listing,
            RunReads reads,
            RunTransitions transitions,
            RunResumption resumption,
            TaskRegistry tasks,
            TransactionTemplate transactions,
            DueRunNotifier notifier,
            EngineListener listener) {
        this.listing = listing;
        this.reads = reads;
        this.transitions = transitions;
        this.resumption = resumption;
        this.tasks = tasks;
        this.transactions = transactions;
        this.notifier = notifier;
        this.listener = listener;
    }

    BulkResult resumeAll(RunQuery query, int maxRuns) {
        return actOn(query, maxRuns, RESUMABLE, this::resume);
    }

    BulkResult cancelAll(RunQuery query, int maxRuns) {
        return actOn(query, maxRuns, CANCELLABLE, this::cancel);
    }

    /** What happened to one run: {@code null} when acted on, otherwise the reason it was skipped. */
    private interface Action {
        @Nullable
        String apply(Run run);
    }

    private BulkResult actOn(RunQuery query, int maxRuns, Set<RunStatus> applicable, Action action) {
        Objects.requireNonNull(query, "query");
        if (maxRuns < 1 || maxRuns > BulkResult.MAX_RUNS) {
            throw new ConfigurationInvalidException(
                    "maxRuns", "must be between 1 and " + BulkResult.MAX_RUNS + ", but was " + maxRuns);
        }
        Set<RunStatus> statuses = EnumSet.copyOf(applicable);
        if (!query.statuses().isEmpty()) {
            statuses.retainAll(query.statuses());
            if (statuses.isEmpty()) {
                throw new ConfigurationInvalidException(
                        "statuses",
                        "must include a status the action applies to (" + applicable + "), but was " + query.statuses()
                                + " (S-RV-4)");
            }
        }
        DefaultRunOperations.validateFilters(query);
        int matched = 0;
        int acted = 0;
        Map<UUID, String> skipped = new LinkedHashMap<>();
        UUID below = null;
        while (matched < maxRuns) {
            int size = Math.min(WINDOW, maxRuns - matched);
            List<Run> window = listing.window(query, statuses, below, size);
            for (Run run : window) {
                matched++;
                String reason = action.apply(run);
                if (reason == null) {
                    acted++;
                } else {
                    skipped.put(run.id(), reason);
                }
            }
            if (window.size() < size) {
                break;
            }
            below = window.get(window.size() - 1).id();
        }
        return new BulkResult(matched, acted, skipped);
    }

    private enum Outcome {
        ACTED,
        REFUSED,
        NOT_LOCKED
    }

    private @Nullable String resume(Run run) {
        if (tasks.find(run.taskId()).isEmpty()) {
            return TASK_NOT_FOUND;
        }
        Outcome outcome;
        try {
            outcome = transactions.execute(status -> {
                Optional<Run> locked = transitions.lockIfFree(run.id());
                if (locked.isEmpty()) {
                    return Outcome.NOT_LOCKED;
                }
                return transitions
                                .resume(
                                        run.id(),
                                        DefaultRunOperations.OPERATOR,
                                        "resumed after " + locked.get().status())
                                .isPresent()
                        ? Outcome.ACTED
                        : Outcome.REFUSED;
            });
        } catch (DuplicateKeyException ex) {
            // A trigger took one of the run's keys between the statement's check and its update.
            outcome = Outcome.REFUSED;
        }
        return switch (Objects.requireNonNull(outcome)) {
            case ACTED -> {
                notifier.runBecameDue();
                yield null;
            }
            case REFUSED -> resumption.refusal(run.id()).code();
            case NOT_LOCKED -> lockedOrGone(run);
        };
    }

    private @Nullable String cancel(Run run) {
        Outcome outcome = transactions.execute(status -> {
            if (transitions.lockIfFree(run.id()).isEmpty()) {
                return Outcome.NOT_LOCKED;
            }
            Optional<Run> cancelled = transitions.cancel(run.id(), DefaultRunOperations.OPERATOR, CANCEL_REASON);
            cancelled
                    .filter(changed -> changed.status().isTerminal())
                    .ifPresent(changed -> AfterCommit.run(() -> listener.runEnded(changed.id(), changed.status())));
            return cancelled.isPresent() ? Outcome.ACTED : Outcome.REFUSED;
        });
        return switch (Objects.requireNonNull(outcome)) {
            case ACTED -> null;
            case REFUSED -> reads.get(run.id()).isPresent() ? RUN_STATE_INVALID : RUN_NOT_FOUND;
            case NOT_LOCKED -> lockedOrGone(run);
        };
    }

    /** A run the lock did not return is held by another transaction, unless it was deleted meanwhile. */
    private String lockedOrGone(Run run) {
        return reads.get(run.id()).isPresent() ? BulkResult.LOCKED : RUN_NOT_FOUND;
    }
}
