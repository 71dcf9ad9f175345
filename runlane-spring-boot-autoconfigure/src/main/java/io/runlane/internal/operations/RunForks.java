package io.runlane.internal.operations;

import io.runlane.Run;
import io.runlane.RunNotFoundException;
import io.runlane.RunStateException;
import io.runlane.RunStep;
import io.runlane.StepNotFoundException;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.step.StepStore;
import io.runlane.internal.trigger.NewRun;
import io.runlane.internal.trigger.RunAdmitter;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Forks a finished run from a step (S-RV-3):
 *
 * <ol>
 *   <li>read the source and its recorded steps, and decide which steps the fork copies: those recorded before the
 *       first occurrence of {@code fromStep}, in recording order ({@link StepStore#list}), or all of them. An unknown
 *       step, an active source and a payload or option that no longer validates are refused here, before anything
 *       is written, so that a caller's transaction is left as it was;
 *   <li>in one transaction (the caller's, if one is active): admit the new run through the path a rerun takes
 *       ({@link RunAdmitter}), then copy the steps under the new run's step ids ({@link StepStore#copyFinished}),
 *       which share-locks the source while it is still terminal. A worker cannot claim the run before the
 *       transaction commits, so its first attempt finds every copied step; a source resumed or pruned in between
 *       rolls the run back.
 * </ol>
 *
 * An admission that created nothing (the options' idempotency key has an owner, or the singleton conflict policy
 * answered with the key's holder) returns that run, and nothing is copied into it.
 */
final class RunForks {

    private final RunReads reads;

    private final StepStore steps;

    private final RunAdmitter admitter;

    private final TransactionTemplate transactions;

    RunForks(RunReads reads, StepStore steps, RunAdmitter admitter, TransactionTemplate transactions) {
        this.reads = reads;
        this.steps = steps;
        this.admitter = admitter;
        this.transactions = transactions;
    }

    /**
     * @param plan plans the fork of a source with the caller's options, as a rerun is planned (S-OP-9)
     */
    Run fork(
            UUID runId,
            @Nullable String fromStep,
            TriggerOptions options,
            BiFunction<Run, TriggerOptions, NewRun> plan) {
        Run source =
                reads.get(Objects.requireNonNull(runId, "runId")).orElseThrow(() -> new RunNotFoundException(runId));
        if (!source.status().isTerminal()) {
            throw notFinished(source);
        }
        List<RunStep> copies = stepsBefore(source.id(), fromStep);
        NewRun run = plan.apply(source, options);
        return Objects.requireNonNull(transactions.execute(status -> {
            TriggerResult admitted = admitter.admit(run);
            if (!admitted.created()) {
                return admitted.run();
            }
            OptionalInt copied = steps.copyFinished(source.id(), admitted.runId(), copies);
            if (copied.isEmpty()) {
                throw notFinished(reads.get(runId).orElseThrow(() -> new RunNotFoundException(runId)));
            }
            if (copied.getAsInt() != copies.size()) {
                throw new IllegalStateException("Copied " + copied.getAsInt() + " of the " + copies.size()
                        + " steps of run " + runId + " to its fork; the fork is rolled back");
            }
            return admitted.run();
        }));
    }

    private List<RunStep> stepsBefore(UUID runId, @Nullable String fromStep) {
        List<RunStep> recorded = steps.list(runId);
        if (fromStep == null) {
            return recorded;
        }
        for (int i = 0; i < recorded.size(); i++) {
            if (recorded.get(i).name().equals(fromStep)) {
                return recorded.subList(0, i);
            }
        }
        throw new StepNotFoundException(runId, fromStep);
    }

    private static RunStateException notFinished(Run source) {
        return new RunStateException(
                source.id(),
                source.status(),
                "only a finished run can be forked (S-RV-3, " + Guarantees.link("S-RV-3") + ")");
    }
}
