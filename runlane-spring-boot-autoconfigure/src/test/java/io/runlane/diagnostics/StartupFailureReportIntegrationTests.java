package io.runlane.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
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
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Every Runlane start-up failure ends in Boot's "APPLICATION FAILED TO START" report (issue 15, item 1): the
 * applications are started by {@code SpringApplication}, so the analyzers are found through {@code spring.factories}
 * as in a real application, and the test reads the report it prints.
 */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class StartupFailureReportIntegrationTests {

    @Pool(size = 2)
    private static HikariDataSource admin;

    @FreshSchema("failure_report")
    private String schema;

    @Test
    @DisplayName("Issue 15.1: a bad TTL fails binding, and Boot reports the property, the value and where it was set")
    void badDefaultTtlIsReportedWithItsOrigin(CapturedOutput output) {
        String report = failureReport(output, PlainApplication.class, "--runlane.idempotency.default-ttl=forever");

        assertThat(report)
                .contains("Failed to bind properties under 'runlane.idempotency.default-ttl'")
                .contains("Value: \"forever\"")
                .contains("Origin: \"runlane.idempotency.default-ttl\" from property source \"commandLineArgs\"")
                .contains("must be 'active' or a positive duration such as '30s', '15m', '24h' or '7d', but was"
                        + " 'forever'")
                .contains("Update your application's configuration");
    }

    @Test
    @DisplayName("Issue 15.1: a value breaking a Jakarta constraint is reported by Boot with the property")
    void constraintViolationIsReportedWithTheProperty(CapturedOutput output) {
        String report = failureReport(output, PlainApplication.class, "--runlane.worker.concurrency=0");

        assertThat(report)
                .contains("Binding to target")
                .contains("Property: runlane.worker.concurrency")
                .contains("Value: \"0\"")
                .contains("Reason: must be greater than or equal to 1")
                .contains("Update your application's configuration");
    }

    @Test
    @DisplayName("Issue 15.1: an invalid property found by the engine is reported with where it was set")
    void invalidPropertyFoundByTheEngineIsReportedWithItsOrigin(CapturedOutput output) {
        String report = failureReport(output, PlainApplication.class, "--runlane.worker.queues=reports");

        assertThat(report)
                .contains("Invalid Runlane configuration property 'runlane.worker.queues': names queue 'reports',"
                        + " which is not declared under runlane.queues")
                .contains("Origin: \"runlane.worker.queues\" from property source \"commandLineArgs\"")
                .contains("Action:")
                .contains("Update the property 'runlane.worker.queues' in your application's configuration.");
    }

    @Test
    @DisplayName("Issue 15.1: an invalid @Task declaration is reported with the class to fix")
    void invalidTaskDeclarationIsReportedWithTheClassToFix(CapturedOutput output) {
        String report = failureReport(output, BadTaskApplication.class);

        assertThat(report)
                .contains("The @Task declaration of " + ColonIdTask.class.getName() + " is invalid: id must not"
                        + " contain ':'")
                .contains("Fix the @Task annotation or the handler class " + ColonIdTask.class.getName())
                .contains("see docs/guarantees.md#s-id-2");
    }

    @Test
    @DisplayName("Issue 15.1: two tasks declaring one id are reported naming both classes")
    void duplicateTaskIdIsReportedNamingBothClasses(CapturedOutput output) {
        String report = failureReport(output, DuplicateTaskApplication.class);

        assertThat(report)
                .contains("The @Task declaration of " + DuplicateConfirmOrder.class.getName())
                .contains("declares task id 'orders.confirm', which " + ConfirmOrder.class.getName()
                        + " already declares")
                .contains("Fix the @Task annotation or the handler class");
    }

    @Test
    @DisplayName("Issue 15.1: a schema that cannot be applied is reported with the database's reason and the fix")
    void schemaThatCannotBeAppliedIsReported(CapturedOutput output) {
        String report = failureReport(output, PlainApplication.class, "--spring.datasource.hikari.read-only=true");

        assertThat(report)
                .contains("Runlane could not apply or check its schema '" + schema + "'")
                .contains("read-only transaction")
                .contains("Grant the database user the right to create the schema '" + schema + "'")
                .contains("runlane.schema.initialize=false");
        assertThat(report).doesNotContain("\tat ");
    }

    @Test
    @DisplayName("Issue 15.1: a database that cannot be reached at start-up is reported as such")
    void unreachableDatabaseIsReported(CapturedOutput output) {
        String report = failureReport(
                output,
                PlainApplication.class,
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:1/postgres",
                "--spring.datasource.hikari.connection-timeout=250");

        assertThat(report)
                .contains("Runlane could not connect to its database to prepare its schema '" + schema + "'")
                .contains("Check that PostgreSQL is running and reachable")
                .contains("spring.datasource.*");
    }

    @Test
    @DisplayName("Issue 15.2: an H2 DataSource fails start-up saying that Runlane requires PostgreSQL 13 or later")
    void h2IsRefusedNamingTheProduct(CapturedOutput output) {
        String report = failureReport(
                output, PlainApplication.class, "--spring.datasource.url=jdbc:h2:mem:runlane_report;DB_CLOSE_DELAY=-1");

        assertThat(report)
                .containsPattern("Runlane requires PostgreSQL 13 or later; found H2 2\\.\\d+\\.\\d+\\.")
                .contains("Give Runlane a PostgreSQL DataSource");
    }

    @Test
    @DisplayName("Issue 15.2: with the schema managed elsewhere, an H2 DataSource is refused too")
    void h2IsRefusedWithoutSchemaInitialization(CapturedOutput output) {
        String report = failureReport(
                output,
                PlainApplication.class,
                "--runlane.schema.initialize=false",
                "--spring.datasource.url=jdbc:h2:mem:runlane_report_verify;DB_CLOSE_DELAY=-1");

        assertThat(report).containsPattern("Runlane requires PostgreSQL 13 or later; found H2 2\\.\\d+\\.\\d+\\.");
    }

    @Test
    @DisplayName("Issue 15.5: several DataSources with none marked fail start-up naming @RunlaneDataSource")
    void severalDataSourcesWithoutAQualifierAreReportedNamingIt(CapturedOutput output) {
        String report = failureReport(output, TwoDataSourcesApplication.class);

        assertThat(report)
                .contains("Runlane needs one DataSource, but the application has 2: ordersDataSource,"
                        + " billingDataSource. None is marked @RunlaneDataSource or @Primary.")
                .contains("Mark the PostgreSQL DataSource Runlane should use with @RunlaneDataSource");
    }

    @Test
    @DisplayName("Issue 15.3: with initialization off, a schema lacking a changelog file fails start-up listing it")
    void missingChangelogFilesAreListed(CapturedOutput output) {
        new RunlaneSchemaInitializer(admin, schema).initialize();
        new JdbcTemplate(admin)
                .update(
                        "DELETE FROM " + schema + "." + RunlaneSchemaInitializer.CHANGELOG_TABLE
                                + " WHERE filename LIKE ?",
                        "%004-implicit-creation-event.sql");

        String report = failureReport(output, PlainApplication.class, "--runlane.schema.initialize=false");

        assertThat(report)
                .contains("runlane.schema.initialize is false, and Runlane's schema '" + schema
                        + "' lacks the changesets of these files of db/runlane/changes/:\n\n"
                        + "    - 004-implicit-creation-event.sql")
                .doesNotContain("001-foundation.sql")
                .contains("include db/runlane/changelog-master.xml in your Liquibase changelog");
    }

    private String failureReport(CapturedOutput output, Class<?> application, String... arguments) {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("--spring.datasource.url", TestDatabase.jdbcUrl());
        args.put("--spring.datasource.hikari.maximum-pool-size", "2");
        args.put("--runlane.schema.name", schema);
        args.put("--runlane.worker.enabled", "false");
        for (String argument : arguments) {
            int equals = argument.indexOf('=');
            args.put(argument.substring(0, equals), argument.substring(equals + 1));
        }
        assertThatThrownBy(() -> new SpringApplicationBuilder(application)
                        .web(WebApplicationType.NONE)
                        .bannerMode(Banner.Mode.OFF)
                        .logStartupInfo(false)
                        .run(args.entrySet().stream()
                                .map(arg -> arg.getKey() + "=" + arg.getValue())
                                .toArray(String[]::new))
                        .close())
                .isNotNull();
        String all = output.getAll();
        int start = all.lastIndexOf("APPLICATION FAILED TO START");
        assertThat(start).as("the failure report in:%n%s", all).isNotNegative();
        return all.substring(start);
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        ValidationAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Configuration(proxyBeanMethods = false)
    static class PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import(ColonIdTask.class)
    static class BadTaskApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    @Import({ConfirmOrder.class, DuplicateConfirmOrder.class})
    static class DuplicateTaskApplication extends PlainApplication {}

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSourcesApplication extends PlainApplication {

        @Bean
        DataSource ordersDataSource() {
            return new DriverManagerDataSource(TestDatabase.jdbcUrl());
        }

        @Bean
        DataSource billingDataSource() {
            return new DriverManagerDataSource(TestDatabase.jdbcUrl());
        }
    }

    record Nothing() {}

    @Task(id = "bad:id")
    static class ColonIdTask implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }

    @Task(id = "orders.confirm")
    static class DuplicateConfirmOrder implements TaskHandler<Nothing> {

        @Override
        public void run(Nothing payload, RunContext context) {}
    }
}
