package io.runlane.internal.trigger;

import io.runlane.Run;
import java.util.UUID;

/** What the database answered to a {@link NewRun}. */
sealed interface Admission {

    /** The run was stored (S-TR-1). */
    record Created(Run run) implements Admission {}

    /**
     * The run was stored already claimed by the local worker, which starts it (S-EX-36); {@code run} is the run as
     * its trigger created it, before the claim ({@link StartedAdmissions}).
     */
    record Started(Run run) implements Admission {}

    /** The idempotency key has an active or retained owner, which is returned; nothing was written (S-IK-2, S-IK-3). */
    record Existing(Run run) implements Admission {}

    /**
     * The run was stored and the key's holder superseded (S-CP-3): {@code owner} is the holder as the supersession
     * left it ({@code CANCELLED}, or {@code CANCELLATION_REQUESTED} with the new run waiting for it), or {@code null}
     * when the holder ended by itself meanwhile.
     */
    record Superseded(
            Run run, @org.jspecify.annotations.Nullable Run owner) implements Admission {}

    /** Another active run holds the singleton key and the policy returns it; nothing was written (S-CP-2). */
    record ReturnedOwner(Run run) implements Admission {}

    /** Another active run holds the singleton key and received the payload as a signal (S-CP-4). */
    record SignaledOwner(Run run) implements Admission {}

    /** The trigger folded into its debounce key's pending run, which is returned as the fold left it (S-DB-1). */
    record Debounced(Run run) implements Admission {}

    /**
     * The run would exceed its task's rate limit for its key; nothing was written (S-RT-2). {@code retryAfter} is
     * when the oldest counted creation leaves the window.
     */
    record RateLimited(@org.jspecify.annotations.Nullable String rateLimitKey, java.time.Instant retryAfter)
            implements Admission {}

    /** Another active run holds the singleton key; nothing was written (S-SK-2). */
    record SingletonHeld(String singletonKey, UUID ownerRunId) implements Admission {}
}
