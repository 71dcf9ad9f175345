package io.runlane.internal.trigger;

import io.runlane.RateLimitExceededException;
import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.AfterCommit;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import java.util.List;

/**
 * Hands planned runs to the database and turns its answers into {@link TriggerResult}s: a singleton conflict
 * becomes {@link SingletonConflictException}, a rate limit's refusal {@link RateLimitExceededException} (S-RT-2), a
 * created due run wakes workers, every answer is reported to the
 * listener. Shared by triggers and by operator reruns and retries.
 */
public final class RunAdmitter {

    private final RunAdmissions admissions;

    private final DueRunNotifier notifier;

    private final EngineListener listener;

    public RunAdmitter(RunAdmissions admissions, DueRunNotifier notifier, EngineListener listener) {
        this.admissions = admissions;
        this.notifier = notifier;
        this.listener = listener;
    }

    public TriggerResult admit(NewRun run) {
        Admission answer = admissions.admit(run);
        if (answer instanceof Admission.RateLimited limited) {
            listener.rateLimited(run.taskId());
            throw new RateLimitExceededException(run.taskId(), limited.rateLimitKey(), limited.retryAfter());
        }
        if (answer instanceof Admission.SingletonHeld held) {
            throw new SingletonConflictException(run.taskId(), held.singletonKey(), held.ownerRunId());
        }
        TriggerResult result = result(answer);
        reportSuperseded(answer);
        listener.triggered(run.taskId(), result.outcome());
        // a run started on this commit (S-EX-36) is due for nobody else
        if (createdDue(result) && !(answer instanceof Admission.Started)) {
            notifier.runBecameDue();
        }
        return result;
    }

    public List<TriggerResult> admitAll(List<NewRun> runs) {
        List<Admission> answers;
        try {
            answers = admissions.admitAll(runs);
        } catch (RateLimitExceededException ex) {
            listener.rateLimited(ex.taskId());
            throw ex;
        }
        answers.forEach(this::reportSuperseded);
        List<TriggerResult> results = answers.stream().map(RunAdmitter::result).toList();
        results.forEach(result -> listener.triggered(result.run().taskId(), result.outcome()));
        if (results.stream().anyMatch(RunAdmitter::createdDue)) {
            notifier.runBecameDue();
        }
        return results;
    }

    /** A holder that SUPERSEDE cancelled at once has ended: wake whoever awaits it (S-CP-3, S-RS-2). */
    private void reportSuperseded(Admission answer) {
        if (answer instanceof Admission.Superseded superseded
                && superseded.owner() != null
                && superseded.owner().status().isTerminal()) {
            Run owner = superseded.owner();
            AfterCommit.run(() -> listener.runEnded(owner.id(), owner.status()));
        }
    }

    private static boolean createdDue(TriggerResult result) {
        return result.created() && result.run().status() == RunStatus.QUEUED;
    }

    private static TriggerResult result(Admission answer) {
        if (answer instanceof Admission.Created created) {
            return new TriggerResult(TriggerOutcome.CREATED, created.run());
        }
        if (answer instanceof Admission.Started started) {
            return new TriggerResult(TriggerOutcome.CREATED, started.run());
        }
        if (answer instanceof Admission.Existing existing) {
            return new TriggerResult(TriggerOutcome.RETURNED_EXISTING, existing.run());
        }
        if (answer instanceof Admission.Superseded superseded) {
            return new TriggerResult(TriggerOutcome.CREATED, superseded.run());
        }
        if (answer instanceof Admission.ReturnedOwner owner) {
            return new TriggerResult(TriggerOutcome.RETURNED_SINGLETON_OWNER, owner.run());
        }
        if (answer instanceof Admission.Debounced debounced) {
            return new TriggerResult(TriggerOutcome.DEBOUNCED, debounced.run());
        }
        if (answer instanceof Admission.SignaledOwner owner) {
            return new TriggerResult(TriggerOutcome.SIGNALED_SINGLETON_OWNER, owner.run());
        }
        throw new IllegalStateException("Unreported singleton conflict: " + answer);
    }
}
