package io.runlane.internal.schedule;

import io.runlane.CatchUpPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Decides which due occurrences of a schedule to fire and where its next fire time moves (S-SC-4, S-SC-7).
 *
 * <ol>
 *   <li>Occurrences older than the catch-up window are dropped, whatever the policy.
 *   <li>An occurrence fired within the misfire threshold of its time is on time; an older one was missed (no instance
 *       ran, or the schedule was paused).
 *   <li>On-time occurrences are each fired. Missed ones follow the catch-up policy: {@code ALL} fires each, oldest
 *       first; {@code LATEST} fires the newest one unless an on-time occurrence is due too (which then stands for
 *       it); {@code NONE} fires none.
 *   <li>The next fire time becomes the first occurrence after {@code now}; under {@code ALL} at most {@code
 *       maxFires} occurrences are fired per transaction, and the next fire time stays at the first one not fired, so
 *       the next pass continues there.
 * </ol>
 *
 * @param fire the occurrences to fire, oldest first
 * @param next the new next fire time, or {@code null} when the expression has no further occurrence
 */
record Occurrences(List<Instant> fire, @Nullable Instant next) {

    /** Bounds the walk through the occurrences of one pass (a one-second interval over a long catch-up window). */
    static final int MAX_STEPS = 100_000;

    static Occurrences plan(
            Recurrence recurrence,
            Instant nextFireAt,
            Instant now,
            Duration catchUpWindow,
            Duration misfireThreshold,
            CatchUpPolicy catchUp,
            int maxFires) {
        Instant lateLimit = now.minus(misfireThreshold);
        List<Instant> missed = new ArrayList<>();
        List<Instant> onTime = new ArrayList<>();
        Instant cursor = recurrence.firstAtOrAfter(nextFireAt, now.minus(catchUpWindow));
        for (int step = 0; cursor != null && !cursor.isAfter(now) && step < MAX_STEPS; step++) {
            if (catchUp == CatchUpPolicy.ALL && missed.size() + onTime.size() == maxFires) {
                return new Occurrences(merged(missed, onTime), cursor);
            }
            (cursor.isBefore(lateLimit) ? missed : onTime).add(cursor);
            cursor = recurrence.next(cursor);
        }
        List<Instant> fire = switch (catchUp) {
            case ALL -> merged(missed, onTime);
            case LATEST -> onTime.isEmpty() && !missed.isEmpty() ? List.of(missed.get(missed.size() - 1)) : onTime;
            case NONE -> onTime;
        };
        return new Occurrences(fire, cursor);
    }

    private static List<Instant> merged(List<Instant> missed, List<Instant> onTime) {
        List<Instant> all = new ArrayList<>(missed);
        all.addAll(onTime);
        return all;
    }
}
