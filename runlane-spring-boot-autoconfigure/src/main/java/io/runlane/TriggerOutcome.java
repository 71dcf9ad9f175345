package io.runlane;

/** What a trigger did (S-TR-1). */
public enum TriggerOutcome {
    /** A new run was stored. */
    CREATED,
    /** The idempotency key already had an active or retained owner; it is returned and nothing was written. */
    RETURNED_EXISTING,
    /**
     * The singleton key was held and the policy was {@link SingletonConflictPolicy#RETURN_OWNER}: the owner is
     * returned and nothing was written (S-CP-2).
     */
    RETURNED_SINGLETON_OWNER,
    /**
     * The singleton key was held and the policy was {@link SingletonConflictPolicy#SIGNAL_OWNER}: the payload was
     * delivered to the owner as a signal, which is returned; no run was created (S-CP-4).
     */
    SIGNALED_SINGLETON_OWNER,
    /**
     * The trigger folded into the debounce key's pending run, which is returned: its due time moved and, in {@link
     * DebounceMode#LATEST} mode, its payload was replaced; no run was created (S-DB-1, S-DB-2).
     */
    DEBOUNCED
}
