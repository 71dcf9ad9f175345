package io.runlane.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.autoconfigure.RunlaneAutoConfiguration;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.util.List;
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
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** A first start on an empty schema is quiet: a line or two at INFO, and no ERROR (issue 15, item 7). */
@ExtendWith(OutputCaptureExtension.class)
@RunlaneDatabaseTest
class StartupLoggingIntegrationTests {

    @Test
    @DisplayName("Issue 15.7: applying the changelog on a first start logs one INFO line, and nothing at ERROR")
    void firstStartLogsOneLineForTheSchemaAndNoError(CapturedOutput output, @FreshSchema("quiet_start") String schema) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(QuietApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(
                        "--spring.datasource.url=" + TestDatabase.jdbcUrl(),
                        "--spring.datasource.hikari.maximum-pool-size=4",
                        "--runlane.schema.name=" + schema,
                        "--logging.level.liquibase=INFO",
                        "--logging.level.io.runlane=INFO")) {
            List<String> lines = output.getOut().lines().toList();

            assertThat(lines)
                    .filteredOn(line -> line.contains(" INFO ") && line.contains("liquibase"))
                    .isEmpty();
            assertThat(lines)
                    .filteredOn(line -> line.contains(" INFO ") && line.contains(schema))
                    .containsExactly(lines.stream()
                            .filter(line -> line.contains("Runlane applied "))
                            .findFirst()
                            .orElseThrow());
            assertThat(lines).filteredOn(line -> line.contains(" ERROR ")).isEmpty();
        }
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    @Configuration(proxyBeanMethods = false)
    @Import(ConfirmOrder.class)
    static class QuietApplication {}
}
