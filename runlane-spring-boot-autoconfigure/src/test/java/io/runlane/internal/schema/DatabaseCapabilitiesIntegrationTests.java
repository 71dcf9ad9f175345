package io.runlane.internal.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 27, item 4: the capabilities the engine relies on are probed once, at start-up, in {@link
 * PostgresRequirement}, and a database that refuses one is named with it. The refusal is real: a role that may not
 * call {@code pg_notify}.
 */
@RunlaneDatabaseTest
class DatabaseCapabilitiesIntegrationTests {

    @Pool(size = 2)
    private HikariDataSource dataSource;

    @Test
    @DisplayName("Issue 27.4: PostgreSQL passes the probes, which leave no listener, lock or transaction behind")
    void postgresPassesTheProbes() throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            assertThatNoException().isThrownBy(() -> PostgresRequirement.check(connection));
            assertThat(new JdbcTemplate(dataSource)
                            .queryForObject(
                                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
                                    Long.class))
                    .isZero();
        }
    }

    @Test
    @DisplayName("Issue 27.4: a database that refuses NOTIFY is refused at start-up, naming LISTEN/NOTIFY")
    void refusedNotifyIsNamed() throws Exception {
        JdbcTemplate admin = new JdbcTemplate(dataSource);
        String role =
                "rl_probe_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        admin.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'probe'");
        // Only roles without superuser rights lose the function: every other test connects as a superuser.
        admin.execute("REVOKE EXECUTE ON FUNCTION pg_notify(text, text) FROM PUBLIC");
        try {
            Properties credentials = new Properties();
            credentials.setProperty("user", role);
            credentials.setProperty("password", "probe");
            String url = TestDatabase.jdbcUrl().replaceAll("([?&])(user|password)=[^&]*&?", "$1");
            try (Connection connection = DriverManager.getConnection(url, credentials)) {
                assertThatThrownBy(() -> PostgresRequirement.check(connection))
                        .isInstanceOfSatisfying(UnsupportedDatabaseException.class, ex -> {
                            assertThat(ex.getMessage())
                                    .contains("LISTEN/NOTIFY")
                                    .contains("PostgreSQL");
                            assertThat(ex.code()).isEqualTo("database_unsupported");
                        });
            }
        } finally {
            admin.execute("GRANT EXECUTE ON FUNCTION pg_notify(text, text) TO PUBLIC");
            admin.execute("DROP ROLE " + role);
        }
    }
}
