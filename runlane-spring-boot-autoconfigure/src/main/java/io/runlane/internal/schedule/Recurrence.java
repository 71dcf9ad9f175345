package io.runlane.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * When a schedule's occurrences fall (S-SC-1, S-SC-4): a cron expression read in a zone, or a fixed interval. Pure
 * computation with no clock of its own: callers pass the database's {@code now} or the previous occurrence.
 */
sealed interface Recurrence {

    /** The schedule's first occurrence when it is created at {@code now}: strictly after it. */
    @Nullable
    Instant first(Instant now);

    /** The occurrence that follows {@code occurrence}, or {@code null} when the expression has no further one. */
    @Nullable
    Instant next(Instant occurrence);

    /**
     * The first occurrence at or after {@code from} in the sequence that passes through {@code occurrence}, without
     * stepping through every occurrence in between (an interval of one second after a week's outage).
     */
    @Nullable
    Instant firstAtOrAfter(Instant occurrence, Instant from);

    /** The cron expression as declared, or {@code every <interval>}. */
    String expression();

    /** The cron text, or {@code null} for an interval. */
    @Nullable
    String cron();

    /** The interval, or {@code null} for a cron expression. */
    @Nullable
    Duration every();

    ZoneId zone();

    /** Parses a cron expression (6 fields, 5 fields meaning second 0, or a macro); throws on a bad one. */
    static Recurrence cron(String expression, ZoneId zone) {
        String trimmed = expression.trim();
        String sixFields = !trimmed.startsWith("@") && trimmed.split("\\s+").length == 5 ? "0 " + trimmed : trimmed;
        return new Cron(expression, CronExpression.parse(sixFields), zone);
    }

    static Recurrence every(Duration interval) {
        return new Every(interval);
    }

    /**
     * A cron expression evaluated on the zone's wall clock. Spring's {@link CronExpression} is asked for the next
     * matching local date-time, which is then placed in the zone: a local time that the zone skips (spring forward)
     * is not an occurrence at all, and a local time the zone repeats (fall back) is one occurrence, at its earlier
     * offset, or at its later one when the earlier has already passed (S-SC-4). Working on local date-times keeps
     * this independent of how {@code CronExpression} treats zoned values around a transition.
     */
    record Cron(String expression, CronExpression parsed, ZoneId zone) implements Recurrence {

        @Override
        public @Nullable Instant first(Instant now) {
            return next(now);
        }

        @Override
        public @Nullable Instant next(Instant occurrence) {
            ZoneRules rules = zone.getRules();
            LocalDateTime local = LocalDateTime.ofInstant(occurrence, zone);
            for (int guard = 0; guard < 100_000; guard++) {
                LocalDateTime candidate = parsed.next(local);
                if (candidate == null) {
                    return null;
                }
                List<ZoneOffset> offsets = rules.getValidOffsets(candidate);
                for (ZoneOffset offset : offsets) {
                    Instant instant = candidate.toInstant(offset);
                    if (instant.isAfter(occurrence)) {
                        return instant;
                    }
                }
                local = candidate;
            }
            return null;
        }

        @Override
        public @Nullable Instant firstAtOrAfter(Instant occurrence, Instant from) {
            return from.isAfter(occurrence) ? next(from.minusNanos(1)) : occurrence;
        }

        @Override
        public String cron() {
            return expression;
        }

        @Override
        public @Nullable Duration every() {
            return null;
        }
    }

    /** A fixed interval from one occurrence to the next; the first is one interval after creation. */
    record Every(Duration interval) implements Recurrence {

        @Override
        public Instant first(Instant now) {
            return now.plus(interval);
        }

        @Override
        public Instant next(Instant occurrence) {
            return occurrence.plus(interval);
        }

        @Override
        public Instant firstAtOrAfter(Instant occurrence, Instant from) {
            if (!from.isAfter(occurrence)) {
                return occurrence;
            }
            long gapMillis = Duration.between(occurrence, from).toMillis();
            long steps = (gapMillis + interval.toMillis() - 1) / interval.toMillis();
            return occurrence.plus(interval.multipliedBy(steps));
        }

        @Override
        public String expression() {
            return "every " + shortest(interval);
        }

        @Override
        public @Nullable String cron() {
            return null;
        }

        /** The interval in its largest whole unit, such as {@code 30s}, {@code 15m} or {@code 1500ms}. */
        private static String shortest(Duration interval) {
            long millis = interval.toMillis();
            long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
            String[] units = {"d", "h", "m", "s"};
            for (int i = 0; i < sizes.length; i++) {
                if (millis % sizes[i] == 0) {
                    return millis / sizes[i] + units[i];
                }
            }
            return millis + "ms";
        }

        @Override
        public Duration every() {
            return interval;
        }

        @Override
        public ZoneId zone() {
            return ZoneOffset.UTC;
        }
    }
}
