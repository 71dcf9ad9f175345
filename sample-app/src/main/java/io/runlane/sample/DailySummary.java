package io.runlane.sample;

import io.runlane.RunContext;
import io.runlane.Schedule;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a summary of yesterday's orders every morning at six, Berlin time. The schedule fires once across all
 * instances of the application; if the summary is still being written when the next morning comes, that occurrence
 * is skipped.
 */
@Task(id = "reports.daily-summary")
@Schedule(id = "reports.daily-summary", cron = "0 6 * * *", zone = "Europe/Berlin", payload = "{\"scope\":\"orders\"}")
class DailySummary implements TaskHandler<DailySummary.Payload> {

    private static final Logger logger = LoggerFactory.getLogger(DailySummary.class);

    record Payload(@NotBlank String scope) {}

    @Override
    public void run(Payload payload, RunContext context) {
        logger.info("Writing the daily {} summary in run {}", payload.scope(), context.runId());
    }
}
