package io.runlane;

/** What a trigger did (S-TR-1). */
public enum TriggerOutcome {
    /** A new run was stored. */
    CREATED,
    /** The idempotency key already had an active or retained owner; it is returned and nothing was written. */
    RETURNED_EXISTING
}
