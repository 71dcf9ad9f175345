package io.runlane.internal.jdbc;

import io.runlane.SingletonConflictPolicy;
import io.runlane.internal.signal.SignalMailbox;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Applies a trigger's singleton conflict policy (S-CP-1) once the database refused its run because another active
 * run holds the key ({@link Admission.SingletonHeld}, with nothing written). Each policy acts on whoever holds the
 * key <em>when it acts</em>, found in the acting statement itself, never on the id the refusal reported, so the
 * owner cannot change between the check and the action; when nobody holds the key any more the answer is {@code
 * null} and the admission is tried again (it then creates the run):
 *
 * <ul>
 *   <li>{@code RETURN_OWNER} reads the active holder and returns it (S-CP-2);
 *   <li>{@code SIGNAL_OWNER} stores the trigger's payload as a signal for the active holder in one statement ({@link
 *       SignalMailbox#sendToSingletonOwner}), deduplicated by the trigger's idempotency key when it has one, so a
 *       repeated trigger delivers once (S-CP-4);
 *   <li>{@code FAIL} answers the refusal itself: the caller throws (S-SK-2).
 * </ul>
 */
public final class SingletonConflicts {

    private final RunReads reads;

    private final SignalMailbox mailbox;

    public SingletonConflicts(RunReads reads, SignalMailbox mailbox) {
        this.reads = reads;
        this.mailbox = mailbox;
    }

    /** The answer for a refused run under its policy; {@code null} when the key is free now and the caller retries. */
    @Nullable
    Admission resolve(NewRun run, Admission.SingletonHeld held) {
        String singletonKey = held.singletonKey();
        return switch (run.onSingletonConflict()) {
            case FAIL -> held;
            case RETURN_OWNER ->
                reads.findActive(run.taskId(), null, singletonKey)
                        .<Admission>map(Admission.ReturnedOwner::new)
                        .orElse(null);
            case SIGNAL_OWNER ->
                mailbox.sendToSingletonOwner(
                                run.taskId(),
                                singletonKey,
                                Objects.requireNonNull(run.signalName(), "signalName"),
                                run.payloadJson(),
                                run.idempotencyKey())
                        .flatMap(sent -> reads.get(sent.runId()))
                        .<Admission>map(Admission.SignaledOwner::new)
                        .orElse(null);
            case SUPERSEDE -> throw new UnsupportedOperationException(SingletonConflictPolicy.SUPERSEDE.name());
        };
    }
}
