package io.runlane.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Each cause of a failed start-up connection gets its own action (issue 31, item 3): a wrong database name is not
 * told to grant rights, refused credentials are not told to start PostgreSQL. Each report echoes the host, port,
 * database and user that were tried, and never the password.
 */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class DatabaseConnectionReportIntegrationTests {

    private static final String PASSWORD = "s3cret-Passw0rd";

    @Pool(size = 2)
    private static HikariDataSource admin;

    @FreshSchema("connection_report")
    private String schema;

    @Test
    @DisplayName("Issue 31.3: an unknown database is told to create it or fix the URL, naming what was tried")
    void unknownDatabaseIsToldToCreateIt(CapturedOutput output) {
        String url = withDatabase(TestDatabase.jdbcUrl(), "nosuchdb");

        String report = failureReport(output, url);

        assertThat(report)
                .contains("Runlane could not connect to its database to prepare its schema '" + schema + "'")
                .contains("database \"nosuchdb\" does not exist")
                .contains("Tried: host " + host(url) + ", port " + port(url) + ", database nosuchdb, user postgres")
                .contains("Create the database (CREATE DATABASE nosuchdb;) or correct the database name at the end"
                        + " of spring.datasource.url")
                .doesNotContain("Grant")
                .doesNotContain(PASSWORD);
    }

    @Test
    @DisplayName("Issue 31.3: an unknown user is told to check the user name and password, never echoing the password")
    void refusedUserIsToldToCheckTheCredentials(CapturedOutput output) {
        String url = TestDatabase.jdbcUrl().replace("user=postgres", "user=nosuchuser");

        String report = failureReport(output, url);

        assertThat(report)
                .containsPattern("role \"nosuchuser\" does not exist|authentication failed for user \"nosuchuser\"")
                .contains("user nosuchuser")
                .contains("Check spring.datasource.username and spring.datasource.password")
                .doesNotContain("Grant")
                .doesNotContain(PASSWORD);
    }

    @Test
    @DisplayName("Issue 31.3: a refused port is told to start PostgreSQL there, naming the host and port")
    void refusedPortIsToldToCheckTheServer(CapturedOutput output) {
        String report = failureReport(
                output,
                "jdbc:postgresql://127.0.0.1:1/orders?user=app",
                "--spring.datasource.hikari.connection-timeout=250");

        assertThat(report)
                .contains("Tried: host 127.0.0.1, port 1, database orders, user app")
                .contains("Check that PostgreSQL is running and reachable at 127.0.0.1:1, and that"
                        + " spring.datasource.url names its host and port")
                .doesNotContain(PASSWORD);
    }

    @Test
    @DisplayName("Issue 31.3: a user without the right to create the schema is told the GRANT to run")
    void userWithoutCreateRightIsToldTheGrant(CapturedOutput output) {
        JdbcTemplate jdbc = new JdbcTemplate(admin);
        jdbc.execute("DROP ROLE IF EXISTS rl_no_create");
        jdbc.execute("CREATE ROLE rl_no_create LOGIN PASSWORD '" + PASSWORD + "'");
        try {
            String url = TestDatabase.jdbcUrl().replace("user=postgres", "user=rl_no_create");

            String report = failureReport(output, url);

            assertThat(report)
                    .contains("Runlane could not apply or check its schema '" + schema + "'")
                    .contains("permission denied for database postgres")
                    .contains("user rl_no_create")
                    .contains("Grant the database user the right to create the schema '" + schema
                            + "' and its tables (GRANT CREATE ON DATABASE postgres TO rl_no_create;), or create the"
                            + " schema for it (CREATE SCHEMA " + schema + " AUTHORIZATION rl_no_create;)")
                    .contains("runlane.schema.initialize=false")
                    .doesNotContain(PASSWORD);
        } finally {
            jdbc.execute("DROP ROLE rl_no_create");
        }
    }

    private String failureReport(CapturedOutput output, String url, String... arguments) {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("--spring.datasource.url", url);
        args.put("--spring.datasource.password", PASSWORD);
        args.put("--spring.datasource.hikari.maximum-pool-size", "2");
        args.put("--runlane.schema.name", schema);
        args.put("--runlane.worker.enabled", "false");
        for (String argument : arguments) {
            int equals = argument.indexOf('=');
            args.put(argument.substring(0, equals), argument.substring(equals + 1));
        }
        int before = output.getAll().length();
        assertThatThrownBy(() -> new SpringApplicationBuilder(PlainApplication.class)
                        .web(WebApplicationType.NONE)
                        .bannerMode(Banner.Mode.OFF)
                        .logStartupInfo(false)
                        .run(args.entrySet().stream()
                                .map(arg -> arg.getKey() + "=" + arg.getValue())
                                .toArray(String[]::new))
                        .close())
                .isNotNull();
        String printed = output.getAll().substring(before);
        int start = printed.lastIndexOf("APPLICATION FAILED TO START");
        assertThat(start).as("the failure report in:%n%s", printed).isNotNegative();
        return printed.substring(start);
    }

    /** {@code jdbc:postgresql://localhost:5432/postgres?user=postgres} with another database. */
    private static String withDatabase(String url, String database) {
        int slash = url.indexOf('/', "jdbc:postgresql://".length());
        int question = url.indexOf('?');
        return url.substring(0, slash + 1) + database + (question >= 0 ? url.substring(question) : "");
    }

    private static String authority(String url) {
        String rest = url.substring("jdbc:postgresql://".length());
        return rest.substring(0, rest.indexOf('/'));
    }

    private static String host(String url) {
        return authority(url).substring(0, authority(url).lastIndexOf(':'));
    }

    private static String port(String url) {
        return authority(url).substring(authority(url).lastIndexOf(':') + 1);
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Configuration(proxyBeanMethods = false)
    static class PlainApplication {}
}
