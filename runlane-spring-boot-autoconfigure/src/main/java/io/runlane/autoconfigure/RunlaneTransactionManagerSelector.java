package io.runlane.autoconfigure;

import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;

/**
 * Chooses the transaction manager of Runlane's statements (S-TR-10). The application's manager is used only when it
 * manages Runlane's {@link DataSource}, so that a trigger joins the caller's transaction (S-TR-3). Any other
 * manager (Kafka's, a JPA one for another database) would leave Runlane's statements in auto-commit: the advisory
 * lock of a limited claim would be released at once (S-QC-2) and a key claim and its compensation would no longer
 * commit together. Runlane then uses its own {@link JdbcTransactionManager} on its {@code DataSource}.
 */
final class RunlaneTransactionManagerSelector {

    private RunlaneTransactionManagerSelector() {}

    static PlatformTransactionManager select(
            DataSource dataSource, ObjectProvider<PlatformTransactionManager> applicationManagers) {
        PlatformTransactionManager unique = applicationManagers.getIfUnique();
        if (unique != null && manages(unique, dataSource)) {
            return unique;
        }
        List<PlatformTransactionManager> managing = applicationManagers
                .orderedStream()
                .filter(manager -> manages(manager, dataSource))
                .toList();
        return managing.size() == 1 ? managing.get(0) : new JdbcTransactionManager(dataSource);
    }

    /**
     * Whether the manager binds its transactions to this data source: a JDBC manager of it, a resource manager whose
     * resource it is, or a manager with a {@code dataSource} property set to it (JPA and Hibernate managers, which
     * share their connection with JDBC code through that property).
     */
    static boolean manages(PlatformTransactionManager manager, DataSource dataSource) {
        DataSource target = unwrap(dataSource);
        if (manager instanceof DataSourceTransactionManager jdbc) {
            return unwrap(jdbc.getDataSource()) == target;
        }
        if (manager instanceof ResourceTransactionManager resource
                && resource.getResourceFactory() instanceof DataSource managed) {
            return unwrap(managed) == target;
        }
        BeanWrapperImpl properties = new BeanWrapperImpl(manager);
        return properties.isReadableProperty("dataSource")
                && properties.getPropertyValue("dataSource") instanceof DataSource managed
                && unwrap(managed) == target;
    }

    /** The data source a {@link TransactionAwareDataSourceProxy} stands for; transactions are bound to that one. */
    private static @Nullable DataSource unwrap(@Nullable DataSource dataSource) {
        DataSource current = dataSource;
        while (current instanceof TransactionAwareDataSourceProxy proxy) {
            current = proxy.getTargetDataSource();
        }
        return current;
    }
}
