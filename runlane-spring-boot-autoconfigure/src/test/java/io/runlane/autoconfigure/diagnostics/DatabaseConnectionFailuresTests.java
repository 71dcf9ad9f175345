package io.runlane.autoconfigure.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.autoconfigure.diagnostics.DatabaseConnectionFailures.Cause;
import io.runlane.internal.schema.SchemaInitializationException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.mock.env.MockEnvironment;

/**
 * The causes a start-up connection fails for, told apart from the exception chain (issue 31, item 3), and what the
 * report echoes of the URL. The causes that need no real server or name lookup are shown here; the others start an
 * application in {@code DatabaseConnectionReportIntegrationTests}.
 */
class DatabaseConnectionFailuresTests {

    @Test
    @DisplayName("Issue 31.3: each cause is told apart from the exception types and PostgreSQL's SQL states")
    void causesAreToldApart() {
        assertThat(classify(new SQLException(
                        "The connection attempt failed.", "08001", new UnknownHostException("db.example"))))
                .isEqualTo(Cause.UNKNOWN_HOST);
        assertThat(classify(new SQLException("refused", "08001", new ConnectException("Connection refused"))))
                .isEqualTo(Cause.CONNECTION_REFUSED);
        assertThat(classify(new SQLException("FATAL: database \"x\" does not exist", "3D000")))
                .isEqualTo(Cause.UNKNOWN_DATABASE);
        assertThat(classify(new SQLException("FATAL: password authentication failed", "28P01")))
                .isEqualTo(Cause.AUTHENTICATION_FAILED);
        assertThat(classify(new SQLException("FATAL: sorry, too many clients already", "53300")))
                .isEqualTo(Cause.TOO_MANY_CONNECTIONS);
        assertThat(classify(new SQLTransientConnectionException(
                        "HikariPool-1 - Connection is not available", new SocketTimeoutException("connect timed out"))))
                .isEqualTo(Cause.TIMED_OUT);
        assertThat(classify(new SQLException("ERROR: permission denied for database app", "42501")))
                .isEqualTo(Cause.PERMISSION_DENIED);
        assertThat(classify(new SQLException("cannot execute CREATE SCHEMA in a read-only transaction", "25006")))
                .isEqualTo(Cause.READ_ONLY);
        assertThat(classify(new SQLException("ERROR: something else", "XX000"))).isEqualTo(Cause.OTHER);
    }

    @Test
    @DisplayName("Issue 31.3: a host name that does not resolve is told so, naming it")
    void unknownHostIsNamed() {
        MockEnvironment environment =
                new MockEnvironment().withProperty("spring.datasource.url", "jdbc:postgresql://db.example/app");
        FailureAnalysis analysis = new SchemaInitializationFailureAnalyzer(environment)
                .analyze(failure(new SQLException(
                        "The connection attempt failed.", "08001", new UnknownHostException("db.example"))));

        assertThat(analysis.getDescription())
                .contains("Runlane could not connect to its database")
                .contains("Tried: host db.example, port 5432, database app");
        assertThat(analysis.getAction())
                .startsWith("The host name 'db.example' does not resolve: correct the host in spring.datasource.url");
    }

    @Test
    @DisplayName("Issue 31.3: the echo of what was tried leaves out the password, from the URL and the properties")
    void passwordIsNeverEchoed() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty(
                        "spring.datasource.url",
                        "jdbc:postgresql://primary:6543,standby:6544/orders?password=hunter2&user=url-user&ssl=true")
                .withProperty("spring.datasource.password", "hunter3");

        DatabaseTarget target = DatabaseTarget.of(environment);

        assertThat(target).isNotNull();
        assertThat(target.describe())
                .startsWith("host primary:6543,standby:6544, port 5432, database orders, user url-user")
                .doesNotContain("hunter");
        assertThat(DatabaseTarget.of(new MockEnvironment()
                                .withProperty("spring.datasource.url", "jdbc:postgresql://[::1]:5433/")
                                .withProperty("spring.datasource.username", "app"))
                        .describe())
                .startsWith("host [::1], port 5433, database (the user's name), user app");
        assertThat(DatabaseTarget.of(new MockEnvironment().withProperty("spring.datasource.url", "jdbc:h2:mem:test")))
                .isNull();
    }

    private static Cause classify(Throwable cause) {
        return DatabaseConnectionFailures.classify(failure(cause));
    }

    private static SchemaInitializationException failure(Throwable cause) {
        return new SchemaInitializationException("runlane", "Could not apply Runlane's schema: " + cause, cause);
    }
}
