package io.runlane.autoconfigure;

import io.runlane.RunlaneTemplate;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.maintenance.MaintenanceService;
import io.runlane.internal.maintenance.PruningService;
import io.runlane.internal.schedule.DeclaredSchedules;
import io.runlane.internal.schedule.ScheduleFirer;
import io.runlane.internal.schema.RunlaneSchemaVerifier;
import io.runlane.internal.worker.RunWorker;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;

/**
 * Tells Boot that Runlane's engine needs the database initialized first: by Runlane's own initializer, or by the
 * application's Liquibase or Flyway when it includes Runlane's changelog instead.
 */
public final class RunlaneDependsOnDatabaseInitializationDetector
        extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {

    @Override
    protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
        return Set.of(
                RunlaneEngine.class,
                RunlaneSchemaVerifier.class,
                RunlaneTemplate.class,
                RunWorker.class,
                MaintenanceService.class,
                PruningService.class,
                DeclaredSchedules.class,
                ScheduleFirer.class);
    }
}
