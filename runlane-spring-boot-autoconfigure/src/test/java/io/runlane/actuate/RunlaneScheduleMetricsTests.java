package io.runlane.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.runlane.autoconfigure.actuate.RunlaneMetrics;
import io.runlane.internal.kernel.EngineListener.ScheduleSkipReason;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-SC-5, S-SC-10: the schedule meters, tagged by schedule and task, skips also by reason. */
class RunlaneScheduleMetricsTests {

    @Test
    @DisplayName("S-SC-5, S-SC-10: fires, skips and lag are metered per schedule and task, skips also per reason")
    void scheduleMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RunlaneMetrics metrics = new RunlaneMetrics(registry, List.of(), Map::of, Duration.ofSeconds(1));

        metrics.scheduleFired("nightly", "reports.build", Duration.ofMillis(250));
        metrics.scheduleFired("nightly", "reports.build", Duration.ofMillis(750));
        metrics.scheduleSkipped("nightly", "reports.build", ScheduleSkipReason.OVERLAP);
        metrics.scheduleSkipped("nightly", "reports.build", ScheduleSkipReason.RATE_LIMITED);
        metrics.scheduleSkipped("nightly", "reports.build", ScheduleSkipReason.RATE_LIMITED);

        assertThat(registry.get("runlane.schedule.fires")
                        .tags("schedule", "nightly", "task", "reports.build")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get("runlane.schedule.skips")
                        .tags("schedule", "nightly", "task", "reports.build", "reason", "overlap")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("runlane.schedule.skips")
                        .tags("schedule", "nightly", "task", "reports.build", "reason", "rate_limited")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get("runlane.schedule.lag")
                        .tags("schedule", "nightly")
                        .timer()
                        .max(TimeUnit.MILLISECONDS))
                .isEqualTo(750);
    }
}
