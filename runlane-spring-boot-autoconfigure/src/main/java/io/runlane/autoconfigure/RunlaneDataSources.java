package io.runlane.autoconfigure;

import java.util.Arrays;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Chooses Runlane's {@link DataSource}: the one marked {@link RunlaneDataSource @RunlaneDataSource}, else the only
 * one or the {@code @Primary} one. With several and none marked, start-up fails naming the qualifier rather than
 * leaving Runlane silently unconfigured.
 */
final class RunlaneDataSources {

    private RunlaneDataSources() {}

    static DataSource select(
            ObjectProvider<DataSource> runlaneDataSource,
            ObjectProvider<DataSource> dataSources,
            ListableBeanFactory beanFactory) {
        DataSource marked = runlaneDataSource.getIfAvailable();
        if (marked != null) {
            return marked;
        }
        try {
            return dataSources.getObject();
        } catch (NoUniqueBeanDefinitionException ex) {
            throw new RunlaneDataSourceNotUniqueException(Arrays.asList(candidates(beanFactory)));
        }
    }

    private static String[] candidates(ListableBeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableListableBeanFactory configurable) {
            return configurable.getBeanNamesForType(DataSource.class, true, false);
        }
        return beanFactory.getBeanNamesForType(DataSource.class);
    }
}
