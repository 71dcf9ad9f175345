package io.runlane;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A trigger would create more runs of a task and rate-limit key than its rate limit allows in the window (S-RT-2);
 * nothing was written. {@link #retryAfter()} is when the oldest counted creation leaves the window, so a trigger
 * then has room again (unless others take it first).
 */
public class RateLimitExceededException extends RunlaneException {

    private final String taskId;

    private final @Nullable String rateLimitKey;

    private final Instant retryAfter;

    public RateLimitExceededException(String taskId, @Nullable String rateLimitKey, Instant retryAfter) {
        super(
                "rate_limited",
                "Task '" + taskId + "'" + (rateLimitKey == null ? "" : " with rate-limit key '" + rateLimitKey + "'")
                        + " reached its rate limit; retry after " + retryAfter);
        this.taskId = taskId;
        this.rateLimitKey = rateLimitKey;
        this.retryAfter = retryAfter;
    }

    public String taskId() {
        return taskId;
    }

    /** The rate-limit key, or {@code null} when the limit is the whole task's. */
    public @Nullable String rateLimitKey() {
        return rateLimitKey;
    }

    /** When the oldest run counted in the window leaves it (database clock). */
    public Instant retryAfter() {
        return retryAfter;
    }
}
