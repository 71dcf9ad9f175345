package io.runlane.internal.operations;

import io.runlane.IdempotencyKeyActiveException;
import io.runlane.Run;
import io.runlane.RunNotFoundException;
import io.runlane.RunStateException;
import io.runlane.RunStatus;
import io.runlane.RunlaneException;
import io.runlane.SingletonConflictException;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.lifecycle.RunTransitions;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.registry.TaskRegistry;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.springframework.dao.DuplicateKeyException;

/**
 * Resumes a failed or cancelled run in place (S-RV-1, S-RV-2). One statement decides ({@link RunTransitions#resume}):
 * it requeues the run only while it is {@code FAILED} or {@code CANCELLED} with no attempt still executing, and only
 * when no other run owns its idempotency key or holds its singleton key, so concurrent resumes resume it once and a
 * trigger that takes a key meanwhile wins or loses as a whole. When the statement changed nothing, the run is read
 * again only to say why, with the typed exception a trigger would get.
 */
final class RunResumption {

    private final RunTransitions transitions;

    private final RunReads reads;

    private final TaskRegistry tasks;

    private final DueRunNotifier notifier;

    RunResumption(RunTransitions transitions, RunReads reads, TaskRegistry tasks, DueRunNotifier notifier) {
        this.transitions = transitions;
        this.reads = reads;
        this.tasks = tasks;
        this.notifier = notifier;
    }

    Run resume(UUID runId, String actor) {
        Objects.requireNonNull(runId, "runId");
        Run source = reads.get(runId).orElseThrow(() -> new RunNotFoundException(runId));
        tasks.require(source.taskId());
        Optional<Run> resumed;
        try {
            resumed = transitions.resume(runId, actor, "resumed after " + source.status());
        } catch (DuplicateKeyException ex) {
            // A trigger took one of the run's keys between this statement's check and its update.
            resumed = Optional.empty();
        }
        if (resumed.isPresent()) {
            notifier.runBecameDue();
            return resumed.get();
        }
        throw refusal(runId);
    }

    /** Why a resume of the run that changed nothing was refused, read again now. */
    RunlaneException refusal(UUID runId) {
        return reads.get(runId).map(this::refusal).orElseGet(() -> new RunNotFoundException(runId));
    }

    private RunlaneException refusal(Run run) {
        if (run.status() != RunStatus.FAILED && run.status() != RunStatus.CANCELLED) {
            return new RunStateException(
                    run.id(),
                    run.status(),
                    "only a FAILED or CANCELLED run can be resumed (S-RV-1, " + Guarantees.link("S-RV-1") + ")");
        }
        String idempotencyKey = run.idempotencyKey();
        if (idempotencyKey != null) {
            Optional<Run> owner = reads.findCurrentOwner(run.taskId(), idempotencyKey)
                    .filter(other -> !other.id().equals(run.id()));
            if (owner.isPresent()) {
                return new IdempotencyKeyActiveException(
                        run.taskId(), idempotencyKey, owner.get().id());
            }
        }
        String singletonKey = run.singletonKey();
        if (singletonKey != null) {
            Optional<UUID> holder =
                    reads.findActiveSingletonOwner(run.taskId(), singletonKey).filter(other -> !other.equals(run.id()));
            if (holder.isPresent()) {
                return new SingletonConflictException(run.taskId(), singletonKey, holder.get());
            }
        }
        return new RunStateException(
                run.id(),
                run.status(),
                "its last attempt may still be executing (the cancellation grace ended the run, S-CA-5), or one of its"
                        + " keys changed hands meanwhile; try again once the attempt's lease has expired (S-RV-2, "
                        + Guarantees.link("S-RV-2") + ")");
    }
}
