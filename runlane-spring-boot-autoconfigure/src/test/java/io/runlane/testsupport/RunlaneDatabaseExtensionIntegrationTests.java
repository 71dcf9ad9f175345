package io.runlane.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.jdbc.core.JdbcTemplate;

/** The pools and schemas {@link RunlaneDatabaseExtension} hands out, and when it closes the pools. */
@RunlaneDatabaseTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RunlaneDatabaseExtensionIntegrationTests {

    @Pool(size = 3)
    private static HikariDataSource classPool;

    @FreshSchema("extension_class")
    private static String classSchema;

    private static HikariDataSource beforeAllPool;

    private static HikariDataSource firstTestPool;

    private static HikariDataSource firstParameterPool;

    @Pool
    private HikariDataSource testPool;

    @FreshSchema("extension_test")
    private String testSchema;

    @BeforeAll
    static void keep(@Pool(size = 1) HikariDataSource pool) {
        beforeAllPool = pool;
    }

    @AfterAll
    static void classPoolsAreOpenUntilAfterAll() {
        assertThat(classPool.isClosed()).isFalse();
        assertThat(beforeAllPool.isClosed()).isFalse();
    }

    @Test
    @Order(1)
    @DisplayName("Fields and parameters get pools of the asked size, each its own, and schemas no one else uses")
    void poolsAndSchemasAreInjected(
            @Pool(size = 2) DataSource parameterPool, @FreshSchema("extension_parameter") String parameterSchema) {
        assertThat(classPool.getMaximumPoolSize()).isEqualTo(3);
        assertThat(testPool.getMaximumPoolSize()).isEqualTo(4);
        assertThat(((HikariDataSource) parameterPool).getMaximumPoolSize()).isEqualTo(2);
        assertThat(beforeAllPool.getMaximumPoolSize()).isOne();
        assertThat(new JdbcTemplate(parameterPool).queryForObject("SELECT 1", Integer.class))
                .isOne();
        assertThat(classSchema).startsWith("rl_extension_class_");
        assertThat(testSchema).startsWith("rl_extension_test_");
        assertThat(parameterSchema).startsWith("rl_extension_parameter_");
        firstTestPool = testPool;
        firstParameterPool = (HikariDataSource) parameterPool;
    }

    @Test
    @Order(2)
    @DisplayName("A test's pools are closed after it, the class's pools stay open")
    void testPoolsAreClosedAfterTheirTest() {
        assertThat(firstTestPool.isClosed()).isTrue();
        assertThat(firstParameterPool.isClosed()).isTrue();
        assertThat(testPool).isNotSameAs(firstTestPool);
        assertThat(testPool.isClosed()).isFalse();
        assertThat(classPool.isClosed()).isFalse();
    }
}
