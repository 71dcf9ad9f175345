package io.runlane.internal.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.CatchUpPolicy;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-SC-4, S-SC-7: which due occurrences fire, from fixed instants. */
class OccurrencesTests {

    private static final Recurrence HOURLY = Recurrence.cron("@hourly", java.time.ZoneOffset.UTC);

    private static final Instant NOW = Instant.parse("2026-06-01T10:20:00Z");

    private static final Duration WINDOW = Duration.ofHours(1);

    private static final Duration THRESHOLD = Duration.ofSeconds(10);

    @Test
    @DisplayName("S-SC-2: an occurrence fired within the threshold fires, whatever the policy")
    void onTimeOccurrenceFires() {
        Instant due = Instant.parse("2026-06-01T10:00:00Z");
        for (CatchUpPolicy policy : CatchUpPolicy.values()) {
            Occurrences plan = Occurrences.plan(HOURLY, due, due.plusSeconds(3), WINDOW, THRESHOLD, policy, 100);
            assertThat(plan.fire()).as("%s", policy).containsExactly(due);
            assertThat(plan.next()).isEqualTo(Instant.parse("2026-06-01T11:00:00Z"));
        }
    }

    @Test
    @DisplayName("S-SC-4: LATEST fires the newest missed occurrence within the window, NONE none, ALL each")
    void catchUpPolicies() {
        Instant missedSince = Instant.parse("2026-06-01T07:00:00Z");

        assertThat(plan(missedSince, CatchUpPolicy.LATEST).fire())
                .containsExactly(Instant.parse("2026-06-01T10:00:00Z"));
        assertThat(plan(missedSince, CatchUpPolicy.NONE).fire()).isEmpty();
        assertThat(plan(missedSince, CatchUpPolicy.ALL).fire())
                .as("only the occurrences within the one-hour window")
                .containsExactly(Instant.parse("2026-06-01T10:00:00Z"));
        assertThat(Occurrences.plan(HOURLY, missedSince, NOW, Duration.ofHours(3), THRESHOLD, CatchUpPolicy.ALL, 100)
                        .fire())
                .containsExactly(
                        Instant.parse("2026-06-01T08:00:00Z"),
                        Instant.parse("2026-06-01T09:00:00Z"),
                        Instant.parse("2026-06-01T10:00:00Z"));
        for (CatchUpPolicy policy : CatchUpPolicy.values()) {
            assertThat(plan(missedSince, policy).next()).isEqualTo(Instant.parse("2026-06-01T11:00:00Z"));
        }
    }

    @Test
    @DisplayName("S-SC-4: ALL fires at most the batch in one pass and resumes at the first occurrence not fired")
    void allIsBatched() {
        Recurrence everySecond = Recurrence.every(Duration.ofSeconds(1));
        Instant since = NOW.minusSeconds(250);

        Occurrences plan = Occurrences.plan(everySecond, since, NOW, WINDOW, THRESHOLD, CatchUpPolicy.ALL, 100);

        assertThat(plan.fire()).hasSize(100).first().isEqualTo(since);
        assertThat(plan.next()).isEqualTo(since.plusSeconds(100));
    }

    private static Occurrences plan(Instant nextFireAt, CatchUpPolicy policy) {
        return Occurrences.plan(HOURLY, nextFireAt, NOW, WINDOW, THRESHOLD, policy, 100);
    }
}
