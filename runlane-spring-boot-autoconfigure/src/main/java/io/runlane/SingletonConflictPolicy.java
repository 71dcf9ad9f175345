package io.runlane;

/**
 * What a trigger does when its singleton key is held by another active run and no idempotency owner answered it
 * (S-CP-1). The database takes the decision atomically: the owner cannot change between the check and the action.
 */
public enum SingletonConflictPolicy {
    /** Fail with {@link SingletonConflictException} carrying the owner's id; nothing is written (S-SK-2). */
    FAIL,
    /** Return the owner ({@link TriggerOutcome#RETURNED_SINGLETON_OWNER}); nothing is written (S-CP-2). */
    RETURN_OWNER,
    /**
     * Newest wins: create the run and cancel the owner in one transaction; a running owner is asked to cancel and
     * the new run waits until it is terminal, so the two never execute at the same time (S-CP-3).
     */
    SUPERSEDE,
    /**
     * Deliver the trigger's payload to the owner as a signal named by {@link TriggerOptions.Builder#signalName}
     * ({@link TriggerOutcome#SIGNALED_SINGLETON_OWNER}); with no owner the run is created: an atomic "start or resume"
     * (S-CP-4).
     */
    SIGNAL_OWNER
}
