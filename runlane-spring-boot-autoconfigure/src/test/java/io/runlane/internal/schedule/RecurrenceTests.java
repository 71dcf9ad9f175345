package io.runlane.internal.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.CronExpression;

/**
 * S-SC-1, S-SC-4: occurrences of cron expressions and intervals, computed from fixed instants (no clock). Berlin
 * springs forward on 2026-03-29 (02:00 local becomes 03:00) and falls back on 2026-10-25 (03:00 local becomes 02:00).
 */
class RecurrenceTests {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    @Test
    @DisplayName("S-SC-4: a local time the zone skips when springing forward fires not at all")
    void skippedLocalTimeFiresNotAtAll() {
        Recurrence daily = Recurrence.cron("0 30 2 * * *", BERLIN);
        Instant start = ZonedDateTime.of(2026, 3, 27, 12, 0, 0, 0, BERLIN).toInstant();

        List<ZonedDateTime> fires = occurrences(daily, start, 3);

        assertThat(fires)
                .containsExactly(
                        ZonedDateTime.of(2026, 3, 28, 2, 30, 0, 0, BERLIN),
                        ZonedDateTime.of(2026, 3, 30, 2, 30, 0, 0, BERLIN),
                        ZonedDateTime.of(2026, 3, 31, 2, 30, 0, 0, BERLIN));
    }

    @Test
    @DisplayName("S-SC-4: a local time the zone repeats when falling back fires once, at its first instant")
    void repeatedLocalTimeFiresOnce() {
        Recurrence daily = Recurrence.cron("0 30 2 * * *", BERLIN);
        Instant start = ZonedDateTime.of(2026, 10, 24, 12, 0, 0, 0, BERLIN).toInstant();

        List<Instant> fires = instants(daily, start, 3);

        assertThat(fires)
                .containsExactly(
                        Instant.parse("2026-10-25T00:30:00Z"),
                        Instant.parse("2026-10-26T01:30:00Z"),
                        Instant.parse("2026-10-27T01:30:00Z"));
    }

    @Test
    @DisplayName("S-SC-4: Spring's zoned next() fires a repeated local time twice; the recurrence fires it once")
    void zonedSpringCronWouldFireTwice() {
        CronExpression spring = CronExpression.parse("0 30 2 * * *");
        ZonedDateTime first = spring.next(ZonedDateTime.of(2026, 10, 24, 12, 0, 0, 0, BERLIN));
        ZonedDateTime second = spring.next(first);

        assertThat(second.toLocalDate())
                .as("CronExpression.next(ZonedDateTime) repeats 02:30 in the fall-back hour")
                .isEqualTo(first.toLocalDate());
        Recurrence daily = Recurrence.cron("0 30 2 * * *", BERLIN);
        assertThat(daily.next(first.toInstant()).atZone(BERLIN).toLocalDate())
                .isEqualTo(first.toLocalDate().plusDays(1));
    }

    @Test
    @DisplayName("S-SC-4: a quarter-hourly expression fires each local time once across the fall-back hour")
    void quarterHourlyAcrossFallBack() {
        Recurrence quarterly = Recurrence.cron("*/15 * * * *", BERLIN);
        Instant start = Instant.parse("2026-10-24T23:50:00Z");

        List<Instant> fires = instants(quarterly, start, 9);

        assertThat(fires)
                .containsExactly(
                        Instant.parse("2026-10-25T00:00:00Z"),
                        Instant.parse("2026-10-25T00:15:00Z"),
                        Instant.parse("2026-10-25T00:30:00Z"),
                        Instant.parse("2026-10-25T00:45:00Z"),
                        Instant.parse("2026-10-25T02:00:00Z"),
                        Instant.parse("2026-10-25T02:15:00Z"),
                        Instant.parse("2026-10-25T02:30:00Z"),
                        Instant.parse("2026-10-25T02:45:00Z"),
                        Instant.parse("2026-10-25T03:00:00Z"))
                .as("02:00-02:45 local fire at +02:00 only (00:00Z-00:45Z), not again at +01:00 (01:00Z-01:45Z);"
                        + " 03:00 local is 02:00Z");
        assertThat(fires).doesNotHaveDuplicates();
    }

    @Test
    @DisplayName("S-SC-4: a schedule created during the repeated hour continues there instead of going back")
    void createdDuringRepeatedHour() {
        Recurrence quarterly = Recurrence.cron("*/15 * * * *", BERLIN);
        Instant secondPass = Instant.parse("2026-10-25T01:10:00Z");

        assertThat(quarterly.first(secondPass)).isEqualTo(Instant.parse("2026-10-25T01:15:00Z"));
    }

    @Test
    @DisplayName("S-SC-4: an hourly expression skips the hour that does not exist when springing forward")
    void hourlyAcrossSpringForward() {
        Recurrence hourly = Recurrence.cron("@hourly", BERLIN);
        Instant start = Instant.parse("2026-03-28T23:30:00Z");

        assertThat(instants(hourly, start, 3))
                .containsExactly(
                        Instant.parse("2026-03-29T00:00:00Z"),
                        Instant.parse("2026-03-29T01:00:00Z"),
                        Instant.parse("2026-03-29T02:00:00Z"))
                .as("01:00, then 03:00 and 04:00 local: 02:00 local does not exist");
    }

    @Test
    @DisplayName("S-SC-1: five fields mean second 0; macros and six fields parse; the zone is the expression's")
    void fieldsAndMacros() {
        Instant start = Instant.parse("2026-06-01T10:00:30Z");

        assertThat(Recurrence.cron("5 * * * *", ZoneOffset.UTC).first(start))
                .isEqualTo(Instant.parse("2026-06-01T10:05:00Z"));
        assertThat(Recurrence.cron("15 5 * * * *", ZoneOffset.UTC).first(start))
                .isEqualTo(Instant.parse("2026-06-01T10:05:15Z"));
        assertThat(Recurrence.cron("@daily", ZoneOffset.UTC).first(start))
                .isEqualTo(Instant.parse("2026-06-02T00:00:00Z"));
        assertThat(Recurrence.cron("0 0 9 * * *", ZoneId.of("America/New_York")).first(start))
                .isEqualTo(Instant.parse("2026-06-01T13:00:00Z"));
    }

    @Test
    @DisplayName("S-SC-1: an interval counts from the previous occurrence; skipping ahead stays on its grid")
    void intervals() {
        Recurrence every = Recurrence.every(Duration.ofSeconds(30));
        Instant occurrence = Instant.parse("2026-06-01T10:00:00Z");

        assertThat(every.next(occurrence)).isEqualTo(Instant.parse("2026-06-01T10:00:30Z"));
        assertThat(every.firstAtOrAfter(occurrence, Instant.parse("2026-06-01T11:00:10Z")))
                .isEqualTo(Instant.parse("2026-06-01T11:00:30Z"));
        assertThat(every.firstAtOrAfter(occurrence, Instant.parse("2026-06-01T09:00:00Z")))
                .isEqualTo(occurrence);
        assertThat(every.expression()).isEqualTo("every 30s");
    }

    private static List<ZonedDateTime> occurrences(Recurrence recurrence, Instant start, int count) {
        return instants(recurrence, start, count).stream()
                .map(instant -> instant.atZone(BERLIN))
                .toList();
    }

    private static List<Instant> instants(Recurrence recurrence, Instant start, int count) {
        List<Instant> fires = new ArrayList<>();
        Instant cursor = recurrence.first(start);
        while (fires.size() < count) {
            fires.add(cursor);
            cursor = recurrence.next(cursor);
        }
        return fires;
    }
}
