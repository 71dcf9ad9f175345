package io.runlane;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * What {@link RunOperations#resumeAll(RunQuery, int)} or {@link RunOperations#cancelAll(RunQuery, int)} did (S-RV-4).
 * Every matched run was either acted on or skipped: {@code matched == acted + skipped.size()}.
 *
 * @param matched the runs the query selected in a status the action applies to, newest first, at most {@code maxRuns}
 * @param acted the runs resumed, or cancelled or asked to stop
 * @param skipped the matched runs left as they were, newest first, each with the reason: the {@link
 *     RunlaneException#code()} a single {@code resume} or {@code cancel} of it would have failed with ({@code
 *     run_state_invalid}, {@code idempotency_key_active}, {@code singleton_conflict}, {@code task_not_found}, {@code
 *     run_not_found}), or {@value #LOCKED} when another transaction held the run at that moment
 */
public record BulkResult(int matched, int acted, Map<UUID, String> skipped) {

    /** The most runs one bulk call acts on. */
    public static final int MAX_RUNS = 10_000;

    /** The reason of a run skipped because another transaction held its row; acting again may succeed. */
    public static final String LOCKED = "locked";

    public BulkResult {
        Objects.requireNonNull(skipped, "skipped");
        skipped = Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
    }
}
