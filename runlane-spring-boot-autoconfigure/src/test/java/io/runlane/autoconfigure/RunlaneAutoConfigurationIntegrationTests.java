package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerResult;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.schema.SchemaNotAppliedException;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Starts a small application the way {@code SpringApplication} does, on a Boot-managed DataSource to the test
 * PostgreSQL: Runlane creates its schema before any bean that uses the database, and leaves it alone when told to.
 */
@RunlaneDatabaseTest
class RunlaneAutoConfigurationIntegrationTests {

    @Pool(size = 2)
    private static HikariDataSource admin;

    @FreshSchema("autoconfig_it")
    private String schema;

    @Test
    void schemaIsCreatedAtStartUpAndATriggerIsStored() {
        try (ConfigurableApplicationContext context =
                start(OrdersApplication.class, Map.of("runlane.worker.enabled", "false"))) {
            assertThat(context.getBeansOfType(RunlaneSchemaInitializer.class)).hasSize(1);
            assertThat(tableExists("runs")).isTrue();
            assertThat(tableExists("run_events")).isTrue();
            assertThat(tableExists("idempotency_keys"))
                    .as("key owners live in runs (changeset 010)")
                    .isFalse();
            assertThat(tableExists(RunlaneSchemaInitializer.CHANGELOG_TABLE))
                    .as("Runlane keeps its own changelog history in its schema")
                    .isTrue();

            RunlaneTemplate template = context.getBean(RunlaneTemplate.class);
            TriggerResult result = template.trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-it-1", 3));

            assertThat(result.created()).isTrue();
            assertThat(new JdbcTemplate(admin)
                            .queryForObject(
                                    "SELECT payload ->> 'orderId' FROM " + schema + ".runs WHERE id = ?",
                                    String.class,
                                    result.runId()))
                    .isEqualTo("o-it-1");
            assertThat(template.runs().events(result.runId())).hasSize(1);
        }
    }

    @Test
    void applicationBeanUsingTheDatabaseStartsAfterTheSchemaInitializer() {
        try (ConfigurableApplicationContext context =
                start(OrdersApplication.class, Map.of("runlane.worker.enabled", "false"))) {
            assertThat(context.getBean(RunCountAtStartUp.class).runs())
                    .as("the application's JdbcTemplate bean waited for Runlane's schema")
                    .isZero();
            String[] dependencies = context.getBeanFactory()
                    .getBeanDefinition("applicationJdbcTemplate")
                    .getDependsOn();
            assertThat(dependencies).contains("runlaneSchemaInitializer");
            assertThat(context.getBeanFactory()
                            .getBeanDefinition("runlaneEngine")
                            .getDependsOn())
                    .as("Runlane's own engine waits for the schema too")
                    .contains("runlaneSchemaInitializer");
        }
    }

    @Test
    void secondStartOnTheSameSchemaKeepsItsRuns() {
        TriggerResult first;
        try (ConfigurableApplicationContext context =
                start(OrdersApplication.class, Map.of("runlane.worker.enabled", "false"))) {
            first = context.getBean(RunlaneTemplate.class)
                    .trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-it-restart", 1));
        }
        try (ConfigurableApplicationContext context =
                start(OrdersApplication.class, Map.of("runlane.worker.enabled", "false"))) {
            assertThat(context.getBean(RunCountAtStartUp.class).runs()).isEqualTo(1);
            TriggerResult again = context.getBean(RunlaneTemplate.class)
                    .trigger(ConfirmOrder.class, new ConfirmOrder.Payload("o-it-restart", 1));
            assertThat(again.created()).isFalse();
            assertThat(again.runId()).isEqualTo(first.runId());
        }
    }

    @Test
    void schemaIsCheckedNotCreatedWhenInitializationIsOff() {
        assertThatThrownBy(() -> start(NoDatabaseUseApplication.class, Map.of("runlane.schema.initialize", "false")))
                .hasRootCauseInstanceOf(SchemaNotAppliedException.class);
        assertThat(schemaExists()).isFalse();
    }

    private ConfigurableApplicationContext start(Class<?> application, Map<String, Object> extraProperties) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.datasource.url", TestDatabase.jdbcUrl());
        properties.put("spring.datasource.hikari.maximum-pool-size", "2");
        properties.put("runlane.schema.name", schema);
        properties.putAll(extraProperties);
        return new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(properties)
                .run();
    }

    private boolean schemaExists() {
        Integer count = new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?",
                        Integer.class,
                        schema);
        return count != null && count > 0;
    }

    private boolean tableExists(String table) {
        Integer count = new JdbcTemplate(admin)
                .queryForObject(
                        "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
                        Integer.class,
                        schema,
                        table);
        return count != null && count > 0;
    }

    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class,
        JacksonAutoConfiguration.class,
        ValidationAutoConfiguration.class,
        RunlaneAutoConfiguration.class
    })
    abstract static class RunlaneApplication {}

    /**
     * An application whose own bean reads Runlane's table while it is created. It is declared before any of
     * Runlane's beans, so it only works if Boot orders it after the schema initializer.
     */
    @Configuration(proxyBeanMethods = false)
    @Import(ConfirmOrder.class)
    static class OrdersApplication extends RunlaneApplication {

        @Bean
        RunCountAtStartUp runCountAtStartUp(
                JdbcTemplate applicationJdbcTemplate, @Value("${runlane.schema.name}") String schema) {
            return new RunCountAtStartUp(applicationJdbcTemplate, schema);
        }

        @Bean
        JdbcTemplate applicationJdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(ConfirmOrder.class)
    static class NoDatabaseUseApplication extends RunlaneApplication {}

    /** Counts Runlane's runs when it is created, which needs the schema to exist. */
    static final class RunCountAtStartUp {

        private final long runs;

        RunCountAtStartUp(JdbcTemplate jdbc, String schema) {
            Long count = jdbc.queryForObject("SELECT count(*) FROM " + schema + ".runs", Long.class);
            this.runs = count == null ? 0 : count;
        }

        long runs() {
            return runs;
        }
    }
}
