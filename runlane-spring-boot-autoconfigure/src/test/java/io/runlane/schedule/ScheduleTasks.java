package io.runlane.schedule;

import io.runlane.OverlapPolicy;
import io.runlane.RunContext;
import io.runlane.Schedule;
import io.runlane.Task;
import io.runlane.TaskHandler;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.PositiveOrZero;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Tasks for the schedule tests. */
final class ScheduleTasks {

    private ScheduleTasks() {}

    /** A report with a validated payload. */
    @Task(id = "schedules.report")
    static class Report implements TaskHandler<Report.Payload> {

        record Payload(
                @NotBlank String name, @PositiveOrZero int copies) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** A task whose handler blocks until released, to keep its run RUNNING (S-SC-3). */
    @Task(id = "schedules.slow")
    static class Slow implements TaskHandler<Slow.Payload> {

        record Payload(String label) {}

        static volatile CountDownLatch release = new CountDownLatch(1);

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            boolean released = false;
            while (!released && !context.isCancellationRequested()) {
                released = release.await(50, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** A task that declares two schedules. */
    @Task(id = "schedules.declared")
    @Schedule(id = "declared.nightly", cron = "0 0 3 * * *", zone = "Europe/Berlin", payload = "{\"label\":\"night\"}")
    @Schedule(id = "declared.frequent", every = "30s", overlap = OverlapPolicy.ALLOW)
    static class Declared implements TaskHandler<Declared.Payload> {

        record Payload(String label) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** A task whose schedule declaration is invalid. */
    @Task(id = "schedules.badly-declared")
    @Schedule(id = "declared.bad", cron = "not a cron")
    static class BadlyDeclared implements TaskHandler<Declared.Payload> {

        @Override
        public void run(Declared.Payload payload, RunContext context) {}
    }
}
