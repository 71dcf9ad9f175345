package io.runlane.actuate;

import io.runlane.NonRetryableException;
import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.testsupport.TestDatabase;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The application the actuator integration tests start with every auto-configuration on the classpath. The worker
 * consumes the {@code default} queue only, so runs of {@link Park} stay {@code QUEUED} on the declared {@code parked}
 * queue while {@link Succeed} and {@link Fail} runs finish.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import({ActuatorTestApplication.Succeed.class, ActuatorTestApplication.Fail.class, ActuatorTestApplication.Park.class})
class ActuatorTestApplication {

    /** A payload naming the run and, optionally, its idempotency key. */
    record Payload(String name, String key) {

        static Payload of(String name) {
            return new Payload(name, "");
        }
    }

    /** Succeeds at once; keyed when the payload has a key. */
    @Task(id = "actuate.succeed")
    static class Succeed implements TaskHandler<Payload> {

        @Override
        public String idempotencyKey(Payload payload) {
            return payload.key().isEmpty() ? null : payload.key();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Fails at once, without retries. */
    @Task(id = "actuate.fail")
    static class Fail implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {
            throw new NonRetryableException("refused " + payload.name());
        }
    }

    /** Waits on a queue no worker of the tests consumes. */
    @Task(id = "actuate.park", queue = "parked", priority = -3, throttle = 5, throttlePeriod = "1s")
    static class Park implements TaskHandler<Payload> {

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** The database, a fresh schema for the calling test class, and the queues above. */
    static void properties(DynamicPropertyRegistry registry, String owner) {
        String schema = TestDatabase.freshSchema(owner);
        registry.add("spring.datasource.url", TestDatabase::jdbcUrl);
        registry.add("spring.datasource.hikari.maximum-pool-size", () -> "10");
        registry.add("runlane.schema.name", () -> schema);
        registry.add("runlane.queues.parked.concurrency-limit", () -> "1");
        registry.add("runlane.worker.queues", () -> "default");
        registry.add("runlane.worker.poll-interval", () -> "200ms");
        registry.add("runlane.worker.concurrency", () -> "2");
    }
}
