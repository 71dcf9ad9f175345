package io.runlane.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.autoconfigure.ForeignTransactionManagerIntegrationTests.NonJdbcTransactionManager;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.support.StaticApplicationContext;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/** Runlane joins the application's transaction manager only when it manages Runlane's data source (S-TR-10). */
@DisplayName("S-TR-10 choice of the transaction manager")
class RunlaneTransactionManagerSelectorTests {

    private final DataSource runlaneDataSource = new DriverManagerDataSource("jdbc:postgresql://runlane/db");

    @Test
    void applicationsJdbcManagerOfTheSameDataSourceIsUsed() {
        JdbcTransactionManager application = new JdbcTransactionManager(runlaneDataSource);

        assertThat(select(application)).isSameAs(application);
    }

    @Test
    void managerOfATransactionAwareProxyOfTheDataSourceIsUsed() {
        JdbcTransactionManager application =
                new JdbcTransactionManager(new TransactionAwareDataSourceProxy(runlaneDataSource));

        assertThat(select(application)).isSameAs(application);
    }

    @Test
    void managerWithADataSourcePropertyOfTheDataSourceIsUsed() {
        JpaLikeTransactionManager application = new JpaLikeTransactionManager(runlaneDataSource);

        assertThat(select(application)).isSameAs(application);
    }

    @Test
    @DisplayName("Finding 3: a manager that does not manage Runlane's data source is not used")
    void foreignManagersAreNotUsed() {
        DataSource other = new DriverManagerDataSource("jdbc:postgresql://other/db");

        assertThat(select(new NonJdbcTransactionManager()))
                .isInstanceOfSatisfying(
                        JdbcTransactionManager.class,
                        own -> assertThat(own.getDataSource()).isSameAs(runlaneDataSource));
        assertThat(select(new JdbcTransactionManager(other))).isInstanceOf(JdbcTransactionManager.class);
        assertThat(((JdbcTransactionManager) select(new JdbcTransactionManager(other))).getDataSource())
                .isSameAs(runlaneDataSource);
        assertThat(select(new JpaLikeTransactionManager(other))).isInstanceOf(JdbcTransactionManager.class);
    }

    @Test
    void theOneManagerOfTheDataSourceIsUsedAmongSeveral() {
        JdbcTransactionManager application = new JdbcTransactionManager(runlaneDataSource);
        StaticApplicationContext context = new StaticApplicationContext();
        context.getBeanFactory().registerSingleton("kafka", new NonJdbcTransactionManager());
        context.getBeanFactory().registerSingleton("jdbc", application);

        assertThat(RunlaneTransactionManagerSelector.select(
                        runlaneDataSource, context.getBeanProvider(PlatformTransactionManager.class)))
                .isSameAs(application);
    }

    private PlatformTransactionManager select(PlatformTransactionManager application) {
        StaticApplicationContext context = new StaticApplicationContext();
        context.getBeanFactory().registerSingleton("transactionManager", application);
        ObjectProvider<PlatformTransactionManager> managers = context.getBeanProvider(PlatformTransactionManager.class);
        return RunlaneTransactionManagerSelector.select(runlaneDataSource, managers);
    }

    /** Like JPA's and Hibernate's managers: not a JDBC manager, but bound to a data source through a property. */
    static final class JpaLikeTransactionManager extends NonJdbcTransactionManager {

        private final DataSource dataSource;

        JpaLikeTransactionManager(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        public DataSource getDataSource() {
            return dataSource;
        }
    }
}
