package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.AutoCommitDataSource;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A database that stops answering while its connections stay open, as a hung primary does (issue 26): the engine's
 * loops abandon such connections after their network timeout and go on with new ones (S-MO-11), whatever the JDBC
 * URL says. The backends are frozen with {@code SIGSTOP}, so the test server must run on this machine.
 */
@RunlaneDatabaseTest
class HungDatabaseIntegrationTests {

    @Pool(size = 2)
    private static HikariDataSource admin;

    private static HikariDataSource pool(String applicationName, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.jdbcUrl());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.addDataSourceProperty("ApplicationName", applicationName);
        config.setPoolName(applicationName);
        return new HikariDataSource(config);
    }

    private static List<Integer> backends(String applicationName) {
        return new JdbcTemplate(admin)
                .queryForList(
                        "SELECT pid FROM pg_stat_activity WHERE application_name = ?", Integer.class, applicationName);
    }

    private static void signal(String name, List<Integer> pids) throws Exception {
        for (int pid : pids) {
            Process kill = new ProcessBuilder("kill", "-" + name, Integer.toString(pid))
                    .inheritIO()
                    .start();
            assertThat(kill.waitFor()).as("kill -%s %d", name, pid).isZero();
        }
    }

    private static void thaw(List<Integer> frozen) throws Exception {
        signal("CONT", frozen);
        for (int pid : frozen) {
            new JdbcTemplate(admin).queryForList("SELECT pg_terminate_backend(?)", pid);
        }
    }

    @Test
    @DisplayName("S-MO-11: a bounded connection whose server stops answering fails within its network timeout")
    void boundedConnectionGivesUp() throws Exception {
        String name = "runlane-hung-bounded-test";
        try (HikariDataSource pool = pool(name, 1)) {
            DataSource bounded = AutoCommitDataSource.bounded(pool, Duration.ofSeconds(1));
            List<Integer> frozen = new ArrayList<>();
            try (Connection connection = bounded.getConnection()) {
                assertThat(connection.getNetworkTimeout()).isEqualTo(1000);
                frozen.addAll(backends(name));
                signal("STOP", frozen);
                CompletableFuture<Void> query = CompletableFuture.runAsync(() -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SELECT 1");
                    } catch (SQLException ex) {
                        throw new IllegalStateException(ex);
                    }
                });

                await().atMost(Duration.ofSeconds(20)).until(query::isDone);
                assertThatThrownBy(query::join).hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
            } finally {
                thaw(frozen);
            }
            try (Connection next = pool.getConnection()) {
                assertThat(next.getNetworkTimeout())
                        .as("the pool gets its connections back with their own timeout")
                        .isZero();
            }
        }
    }

    @Test
    @DisplayName("S-MO-11, S-TR-14: a bounded connection of a manual-commit pool goes back as it was lent")
    void boundedConnectionIsRestored() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.jdbcUrl());
        config.setMaximumPoolSize(1);
        config.setAutoCommit(false);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            DataSource bounded = AutoCommitDataSource.bounded(pool, Duration.ofSeconds(3));
            try (Connection connection = bounded.getConnection()) {
                assertThat(connection.getAutoCommit()).isTrue();
                assertThat(connection.getNetworkTimeout()).isEqualTo(3000);
            }
            try (Connection raw = pool.getConnection()) {
                assertThat(raw.getAutoCommit()).isFalse();
                assertThat(raw.getNetworkTimeout()).isZero();
            }
        }
    }

    @Test
    @DisplayName("S-MO-11: a worker whose connections stop answering abandons them and goes on executing runs")
    void workerSurvivesFrozenConnections() throws Exception {
        String name = "runlane-hung-worker-test";
        try (HikariDataSource pool = pool(name, 6)) {
            TestRunlane runlane = TestRunlane.withExecution(
                    pool,
                    TestDatabase.freshSchema(admin, "hung_worker"),
                    settings -> settings.withNetworkTimeout(Duration.ofSeconds(1)),
                    ExecutionSettings.defaults().withWorker(2, Duration.ofMillis(50)),
                    EngineListener.NONE,
                    new ConfirmOrder());
            TestRunlane producer = runlane.instanceOn(admin);
            runlane.startWorker();
            List<Integer> frozen = new ArrayList<>();
            try {
                UUID first = producer.template()
                        .trigger(ConfirmOrder.class, new ConfirmOrder.Payload("hung-1", 1))
                        .runId();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> producer.run(first).status(), RunStatus.SUCCEEDED::equals);

                frozen.addAll(backends(name));
                signal("STOP", frozen);
                UUID second = producer.template()
                        .trigger(ConfirmOrder.class, new ConfirmOrder.Payload("hung-2", 1))
                        .runId();

                await().atMost(Duration.ofSeconds(30))
                        .until(() -> producer.run(second).status(), RunStatus.SUCCEEDED::equals);
            } finally {
                thaw(frozen);
                // the pool's connections to the thawed and terminated backends must not serve the row check
                pool.getHikariPoolMXBean().softEvictConnections();
                runlane.stop();
            }
        }
    }
}
