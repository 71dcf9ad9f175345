package io.runlane.autoconfigure;

import io.runlane.internal.schema.RunlaneSchemaInitializer;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.boot.sql.init.dependency.DatabaseInitializerDetector;

/** Tells Boot that {@link RunlaneSchemaInitializer} initializes a database, so dependants start after it. */
public final class RunlaneSchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector
        implements DatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(RunlaneSchemaInitializer.class);
    }
}
