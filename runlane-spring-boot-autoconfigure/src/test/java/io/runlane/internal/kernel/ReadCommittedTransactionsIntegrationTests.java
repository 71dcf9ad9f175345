package io.runlane.internal.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.JdbcTransactionManager;

/**
 * The engine's transactions on a connection that dies under them (issue 26, item 5): the work's own failure reaches
 * the caller, with the failed rollback as suppressed, and nothing is logged at {@code ERROR} — the calling loop warns
 * once per outage (S-MO-4).
 */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class ReadCommittedTransactionsIntegrationTests {

    @Pool(size = 2)
    private static HikariDataSource dataSource;

    @Test
    @DisplayName("S-MO-4: a transaction whose connection is cut throws the work's failure and logs no ERROR")
    void cutConnectionThrowsTheWorksFailureWithoutAnErrorLine(CapturedOutput output) {
        ReadCommittedTransactions transactions =
                new ReadCommittedTransactions(new JdbcTransactionManager(dataSource), JdbcClient.create(dataSource));
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);

        assertThatThrownBy(() -> transactions.execute(status -> {
                    jdbc.queryForList("SELECT pg_terminate_backend(pg_backend_pid())");
                    return null;
                }))
                .isInstanceOf(DataAccessException.class)
                .satisfies(failure -> assertThat(failure.getSuppressed()).isNotEmpty());

        assertThat(output.getOut() + output.getErr())
                .doesNotContain("overridden by rollback exception")
                .doesNotContain(" ERROR ");
    }

    @Test
    @DisplayName("S-TR-11: a transaction commits its work and a failing one rolls it back")
    void commitsAndRollsBack() {
        ReadCommittedTransactions transactions =
                new ReadCommittedTransactions(new JdbcTransactionManager(dataSource), JdbcClient.create(dataSource));
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("DROP TABLE IF EXISTS rct_committed");
        jdbc.execute("CREATE TABLE rct_committed (id int)");

        transactions.execute(status -> jdbc.update("INSERT INTO rct_committed VALUES (1)"));
        assertThatThrownBy(() -> transactions.execute(status -> {
                    jdbc.update("INSERT INTO rct_committed VALUES (2)");
                    throw new IllegalStateException("work failed");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("work failed");

        assertThat(jdbc.queryForList("SELECT id FROM rct_committed", Integer.class))
                .containsExactly(1);
        jdbc.execute("DROP TABLE rct_committed");
    }
}
