package io.runlane.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.testsupport.DatabaseGate;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
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
@RunlaneDatabaseTest
class TriggerConnectionLossIntegrationTests {

    @Pool(size = 2)
    private HikariDataSource admin;

    @Pool(size = 2)
    private HikariDataSource application;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("connection_loss") String schema) {
        runlane = TestRunlane.start(application, schema, new ConfirmOrder());
    }

    @AfterEach
    void stop() {
        runlane.stop();
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
