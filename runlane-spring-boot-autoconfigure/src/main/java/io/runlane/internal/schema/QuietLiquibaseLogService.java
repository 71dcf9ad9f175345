package io.runlane.internal.schema;

import java.util.logging.Level;
import liquibase.logging.Logger;
import liquibase.logging.core.AbstractLogService;
import liquibase.logging.core.AbstractLogger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Liquibase's log for Runlane's own changelog runs: its two dozen INFO lines per start (lock taken, changeset ran,
 * lock released) go to DEBUG under Liquibase's logger names, warnings and errors stay what they are, and
 * {@link RunlaneSchemaInitializer} logs one INFO line of its own. The application's own Liquibase runs are not
 * affected: this service is set only in the scope of Runlane's update.
 */
final class QuietLiquibaseLogService extends AbstractLogService {

    @Override
    public int getPriority() {
        return PRIORITY_SPECIALIZED;
    }

    @Override
    public Logger getLog(Class clazz) {
        return new QuietLogger(LogFactory.getLog(clazz));
    }

    private static final class QuietLogger extends AbstractLogger {

        private final Log log;

        QuietLogger(Log log) {
            this.log = log;
        }

        @Override
        public void log(Level level, String message, @Nullable Throwable failure) {
            if (level == Level.OFF) {
                return;
            }
            if (level.intValue() >= Level.SEVERE.intValue()) {
                log.error(message, failure);
            } else if (level.intValue() >= Level.WARNING.intValue()) {
                log.warn(message, failure);
            } else if (log.isDebugEnabled()) {
                log.debug(message, failure);
            }
        }
    }
}
