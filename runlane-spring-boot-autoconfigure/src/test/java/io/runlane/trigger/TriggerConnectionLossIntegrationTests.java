package io.runlane.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.testsupport.DatabaseGate;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/** A trigger whose connection is cut while it runs fails with the cause, not with the failed rollback after it. */
class TriggerConnectionLossIntegrationTests {

    private HikariDataSource admin;

    private HikariDataSource application;

    private TestRunlane runlane;

    @BeforeEach
    void start() {
        admin = TestDatabase.newDataSource(2);
        application = TestDatabase.newDataSource(2);
        runlane =
                TestRunlane.start(application, TestDatabase.freshSchema(admin, "connection_loss"), new ConfirmOrder());
    }

    @AfterEach
    void stop() {
        runlane.stop();
        application.close();
        admin.close();
    }

    @Test
    @DisplayName("Finding 13: a trigger with both keys whose connection is cut fails with the real cause, not"
            + " 'Application exception overridden by rollback exception'")
    void cutConnectionSurfacesItsCause() {
        JdbcTemplate adminJdbc = new JdbcTemplate(admin);
        try (DatabaseGate gate = new DatabaseGate(adminJdbc, runlane.schema(), "runs", "BEFORE INSERT")) {
            CompletableFuture<TriggerResult> trigger = CompletableFuture.supplyAsync(() -> runlane.template()
                    .trigger(
                            ConfirmOrder.class,
                            new ConfirmOrder.Payload("o-1", 1),
                            TriggerOptions.builder()
                                    .idempotencyKey("order-1")
                                    .singletonKey("order-1")
                                    .build()));
            int triggering = gate.awaitWaiter();

            adminJdbc.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, triggering);

            assertThat(trigger)
                    .failsWithin(Duration.ofSeconds(30))
                    .withThrowableOfType(ExecutionException.class)
                    .havingCause()
                    .isInstanceOf(DataAccessException.class)
                    .satisfies(failure -> assertThat(failure.getCause())
                            .isInstanceOfSatisfying(
                                    SQLException.class,
                                    cause -> assertThat(cause.getSQLState())
                                            .as("admin_shutdown: the backend was terminated")
                                            .isEqualTo("57P01")));
        }
        assertThat(adminJdbc.queryForObject("SELECT count(*) FROM " + runlane.schema() + ".runs", Integer.class))
                .isZero();
    }
}
