package io.runlane.internal.lifecycle;

/**
 * The SQL that says which run owns an idempotency key (S-IK), in one place. The owner is the run row itself: the
 * partial unique index {@code runs_idempotency_key_owner_uq} holds exactly the runs {@link #holds} is true for, so
 * at most one run per (environment, task, key) holds it (S-IK-1, S-IK-7), and the index follows the run's status
 * without a statement of its own: a run that becomes {@code FAILED}, or terminal in {@code active} mode, leaves it
 * (S-IK-4, S-IK-5). A holder whose retention has passed is still in the index but owns nothing (S-IK-10); the next
 * trigger of its key releases it ({@code idempotency_key_released}) and is admitted.
 *
 * <p>Every predicate repeats the index's own terms, so that PostgreSQL proves the partial index applies. {@link
 * #currentOwner} is public for the one statement of another concern that must answer a duplicate trigger itself:
 * the {@code SIGNAL_OWNER} send, which reads the key's owner in the snapshot it sends in (S-SK-3, S-CP-4).
 */
public final class KeyOwnership {

    private KeyOwnership() {}

    /**
     * Whether run {@code alias} is in the owners' index: the index's predicate, word for word. Each fragment here
     * starts with a space, so that it can follow a text block, whose trailing spaces Java strips.
     */
    public static String holds(String alias) {
        return " " + """
                %1$s.idempotency_key IS NOT NULL AND NOT %1$s.idempotency_key_released AND %1$s.status <> 'FAILED'
                  AND (%1$s.finished_at IS NULL OR %1$s.idempotency_key_ttl_ms > 0)""".formatted(alias);
    }

    /** When run {@code alias}'s retention of its key ends: finish time + the TTL captured at creation (S-IK-3). */
    public static String retainedUntil(String alias) {
        return "%1$s.finished_at + %1$s.idempotency_key_ttl_ms * interval '1 millisecond'".formatted(alias);
    }

    /** Whether run {@code alias} owns its key now: it holds it, and is active or still within its retention. */
    public static String owns(String alias) {
        return holds(alias)
                + "\n  AND (%1$s.finished_at IS NULL OR %2$s > statement_timestamp())"
                        .formatted(alias, retainedUntil(alias));
    }

    /** Whether run {@code alias} holds its key although its retention has passed (S-IK-10). */
    public static String holdsExpired(String alias) {
        return holds(alias)
                + "\n  AND %1$s.finished_at IS NOT NULL AND %2$s <= statement_timestamp()"
                        .formatted(alias, retainedUntil(alias));
    }

    /**
     * The run that owns key {@code :idempotencyKey} of task {@code :taskId} now, if any, as a query: what a duplicate
     * trigger is answered with.
     */
    public static String currentOwner(String alias) {
        return "SELECT %1$s.* FROM {schema}.runs %1$s WHERE".formatted(alias) + keyIs(alias) + "\n AND" + owns(alias);
    }

    /** The owner of key {@code :idempotencyKey} of task {@code :taskId}, as run {@code alias}. */
    public static String keyIs(String alias) {
        return " %1$s.environment = :environment AND %1$s.task_id = :taskId AND %1$s.idempotency_key = :idempotencyKey"
                .formatted(alias);
    }
}
