package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * S-EX-37: a worker whose claim found fewer due runs than it had room for does not claim again for each slot that
 * frees up, only when runs may be due (a notification, a trigger it did not start, the poll interval). Runs started
 * on their trigger (S-EX-36) notify nobody, so before this rule every such run cost an empty claim when its slot
 * freed. The worker's poll interval is a minute here, so whatever the tests see claimed was claimed on a wake-up.
 */
@RunlaneDatabaseTest
class ShortClaimIntegrationTests {

    private static final Duration POLL_INTERVAL = Duration.ofMinutes(1);

    @Task(id = "shortclaim.quick")
    public static class Quick implements TaskHandler<Quick.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Holds its slot until the test lets it go. */
    @Task(id = "shortclaim.blocking")
    public static class Blocking implements TaskHandler<Blocking.Payload> {

        public record Payload(int index) {}

        static volatile CountDownLatch release = new CountDownLatch(1);

        @Override
        public void run(Payload payload, RunContext context) throws InterruptedException {
            release.await(60, TimeUnit.SECONDS);
        }
    }

    /**
     * A throttled task beside the others: its window frees up with time, not when an attempt ends (S-TH-1), so the
     * worker still waits for a notification or the window rather than claiming on each freed slot.
     */
    @Task(id = "shortclaim.throttled", throttle = 1, throttlePeriod = "500ms")
    public static class Throttled implements TaskHandler<Throttled.Payload> {

        public record Payload(int index) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Pool(size = 8)
    private HikariDataSource dataSource;

    /** Another application instance, without a worker: its triggers notify the worker's instance. */
    @Pool(size = 4)
    private HikariDataSource otherInstance;

    @FreshSchema("shortclaim")
    private String schema;

    private ClaimCounter claims;

    private TestRunlane runlane;

    @BeforeEach
    void start() {
        Blocking.release = new CountDownLatch(1);
        claims = new ClaimCounter(dataSource);
        runlane = TestRunlane.withExecution(
                        claims,
                        schema,
                        UnaryOperator.identity(),
                        ExecutionSettings.defaults().withWorker(2, POLL_INTERVAL),
                        EngineListener.NONE,
                        new Quick(),
                        new Blocking(),
                        new Throttled())
                .startWorker();
        await().atMost(Duration.ofSeconds(10)).until(() -> claims.count() > 0);
    }

    @AfterEach
    void stop() {
        Blocking.release.countDown();
        runlane.stop();
    }

    @Test
    @DisplayName(
            "S-EX-37, S-EX-36: runs started on their trigger do not each cost an empty claim when their slot frees,"
                    + " also beside a throttled task")
    void startedRunsCostNoClaimWhenTheirSlotFrees() {
        int before = claims.count();
        for (int i = 0; i < 30; i++) {
            UUID run = runlane.template()
                    .trigger("shortclaim.quick", new Quick.Payload(i))
                    .runId();
            await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(run).status() == RunStatus.SUCCEEDED);
        }

        assertThat(claims.count() - before)
                .as("claim statements for 30 runs started on their trigger")
                .isLessThan(5);
    }

    @Test
    @DisplayName(
            "S-EX-37, S-TH-2: a throttled run over its throttle starts when its window frees, not at the next poll")
    void aThrottledRunStartsWhenItsWindowFrees() {
        UUID first = runlane.template()
                .trigger("shortclaim.throttled", new Throttled.Payload(0))
                .runId();
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(first).status() == RunStatus.SUCCEEDED);
        UUID second = runlane.template()
                .trigger("shortclaim.throttled", new Throttled.Payload(1))
                .runId();

        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(second).status() == RunStatus.SUCCEEDED);
        assertThat(Duration.between(startOf(first), startOf(second)))
                .as("the second start is at least the throttle's period after the first (S-TH-1)")
                .isGreaterThanOrEqualTo(Duration.ofMillis(500));
    }

    @Test
    @DisplayName("S-EX-37: a freed slot still claims the runs that waited while every slot was busy")
    void aFreedSlotClaimsWhatWaitedForIt() {
        List<UUID> blocked = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            blocked.add(runlane.template()
                    .trigger("shortclaim.blocking", new Blocking.Payload(i))
                    .runId());
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> blocked.stream().allMatch(run -> runlane.run(run).status() == RunStatus.RUNNING));
        List<UUID> waiting = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiting.add(runlane.template()
                    .trigger("shortclaim.quick", new Quick.Payload(i))
                    .runId());
        }

        Blocking.release.countDown();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> waiting.stream().allMatch(run -> runlane.run(run).status() == RunStatus.SUCCEEDED));
    }

    @Test
    @DisplayName("S-EX-37: after a claim that found nothing, a run triggered elsewhere is claimed on its notification")
    void aNotifiedRunIsClaimedAfterAnEmptyClaim() {
        UUID started = runlane.template()
                .trigger("shortclaim.quick", new Quick.Payload(0))
                .runId();
        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(started).status() == RunStatus.SUCCEEDED);

        TestRunlane other = runlane.instanceOn(otherInstance);
        try {
            UUID elsewhere = other.template()
                    .trigger("shortclaim.quick", new Quick.Payload(1))
                    .runId();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> runlane.run(elsewhere).status() == RunStatus.SUCCEEDED);
        } finally {
            other.stop();
        }
    }

    private Instant startOf(UUID run) {
        return runlane.template().runs().attempts(run).get(0).startedAt();
    }

    /** Counts the worker's claim statements: those that lock due runs to claim them. */
    static final class ClaimCounter extends DelegatingDataSource {

        private final AtomicInteger claims = new AtomicInteger();

        ClaimCounter(DataSource target) {
            super(target);
        }

        int count() {
            return claims.get();
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection target = obtainTargetDataSource().getConnection();
            return (Connection) Proxy.newProxyInstance(
                    ShortClaimIntegrationTests.class.getClassLoader(),
                    new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("prepareStatement")
                                && args[0] instanceof String sql
                                && sql.contains("WITH RECURSIVE levels")) {
                            claims.incrementAndGet();
                        }
                        if (method.getName().equals("equals") && args != null && args.length == 1) {
                            return proxy == args[0];
                        }
                        try {
                            return method.invoke(target, args);
                        } catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
        }
    }
}
