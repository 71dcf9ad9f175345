package io.runlane.console;

import io.runlane.NonRetryableException;
import io.runlane.RunContext;
import io.runlane.ScheduleDefinition;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.testsupport.TestDatabase;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The application the console tests start, with every auto-configuration on the classpath. The worker consumes the
 * {@code default} queue only, so runs of {@link Park} stay {@code QUEUED} on the {@code reports} queue while {@link
 * Succeed} and {@link Fail} runs finish. Each test class closes its context ({@code @DirtiesContext}): their
 * configurations differ, and idle pools would crowd the shared server.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import({
    ConsoleTestApplication.Succeed.class,
    ConsoleTestApplication.Fail.class,
    ConsoleTestApplication.Park.class,
    ConsoleTestApplication.Hold.class,
    ConsoleTestApplication.ComputeQuote.class,
    ConsoleTestApplication.Replay.class,
    ConsoleTestApplication.PlaceOrder.class
})
public class ConsoleTestApplication {

    /** The payload: a name, and an idempotency key when not empty. */
    public record Payload(String name, String key) {

        public static Payload of(String name) {
            return new Payload(name, "");
        }
    }

    /** Succeeds at once; keyed when the payload has a key. */
    @Task(id = "orders.confirm")
    static class Succeed implements TaskHandler<Payload> {

        @Override
        public String idempotencyKey(Payload payload) {
            return payload.key().isEmpty() ? null : payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Fails at once, without retries, with a message that repeats the payload's name. */
    @Task(id = "invoices.send")
    static class Fail implements TaskHandler<Payload> {

        @Override
        public String idempotencyKey(Payload payload) {
            return payload.key().isEmpty() ? null : payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {
            throw new NonRetryableException("refused " + payload.name());
        }
    }

    /** Waits on a queue no worker of the tests consumes; keyed when the payload has a key. */
    @Task(id = "reports.build", queue = "reports")
    static class Park implements TaskHandler<Payload> {

        @Override
        public String idempotencyKey(Payload payload) {
            return payload.key().isEmpty() ? null : payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Runs until its cancellation is requested, so that it holds a lease meanwhile. */
    @Task(id = "exports.generate")
    static class Hold implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {
            while (!context.isCancellationRequested()) {
                LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
            }
        }
    }

    /** A quote: its total and a note. */
    public record Quote(int total, String note) {}

    /**
     * Computes a quote in two durable steps; the second records the payload's name, and the note repeats its key, so
     * that stored markup can be put in both.
     */
    @Task(id = "quotes.compute")
    static class ComputeQuote implements TaskFunction<Payload, Quote> {

        @Override
        public Quote run(Payload payload, RunContext context) throws Exception {
            Integer prices = context.step("fetch-prices", Integer.class, step -> 40);
            String label = context.step("label", String.class, step -> payload.name());
            return new Quote(prices + 2, label + " / " + payload.key());
        }
    }

    /** How many steps {@link Replay} records, and the label their names start with. */
    public record Entries(int steps, String label) {}

    /**
     * Records the given number of durable steps, named by the label and the entry's number modulo 3 (so names repeat
     * and occurrences count), then runs until its cancellation is requested, so that its page keeps refreshing.
     */
    @Task(id = "ledger.replay")
    static class Replay implements TaskHandler<Entries> {

        @Override
        public void run(Entries entries, RunContext context) throws Exception {
            for (int i = 1; i <= entries.steps(); i++) {
                int entry = i;
                context.step(entries.label() + " " + (i % 3), Integer.class, step -> entry);
            }
            while (!context.isCancellationRequested()) {
                LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
            }
        }
    }

    /** The name of {@link PlaceOrder}'s first step for a payload: it repeats the payload's name. */
    public static String chargeStep(Payload payload) {
        return "charge " + payload.name();
    }

    /**
     * A checkout that records two steps, {@link #chargeStep(Payload) "charge <name>"} and {@code reserve}, then fails
     * without retries in {@code ship}, so that its run can be forked from either recorded step or after both.
     */
    @Task(id = "checkout.place")
    static class PlaceOrder implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            context.step(chargeStep(payload), Integer.class, step -> 40);
            context.step("reserve", Integer.class, step -> 2);
            context.step("ship", Integer.class, step -> {
                throw new NonRetryableException("carrier refused " + payload.name());
            });
        }
    }

    /** A schedule of {@link Park} that fires at 02:00 each night. */
    public static ScheduleDefinition nightlyReport(String id) {
        return ScheduleDefinition.builder(id, "reports.build")
                .cron("0 0 2 * * *")
                .payload(new Payload("nightly", ""))
                .build();
    }

    /** The database, a fresh schema for the calling test class, and the queues above. */
    public static void properties(DynamicPropertyRegistry registry, String owner) {
        String schema = TestDatabase.freshSchema(owner);
        registry.add("spring.datasource.url", TestDatabase::jdbcUrl);
        registry.add("spring.datasource.hikari.maximum-pool-size", () -> "5");
        registry.add("runlane.schema.name", () -> schema);
        registry.add("runlane.queues.reports.concurrency-limit", () -> "1");
        registry.add("runlane.worker.queues", () -> "default");
        registry.add("runlane.worker.poll-interval", () -> "200ms");
        registry.add("runlane.worker.concurrency", () -> "2");
        registry.add("runlane.worker.heartbeat-interval", () -> "300ms");
    }
}
