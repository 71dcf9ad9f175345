package io.runlane.sample;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.FileSystemUtils;

/**
 * Starts an embedded PostgreSQL when {@code spring.datasource.url} is not set, so the sample runs on a machine
 * without a database. Its data lives in {@code sample.postgres.data-directory} (default
 * {@code target/runlane-sample-postgres} under the working directory) and is there again at the next start: runs,
 * keys and schedules survive a restart as they would on a real server. {@code sample.postgres.wipe=true} starts it
 * empty. A real application sets {@code spring.datasource.url} and has no such class.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${spring.datasource.url:}'.isEmpty()")
class EmbeddedPostgresConfiguration {

    /**
     * The server, stopped by the context after the pool that uses it (its own JVM shutdown hook would stop it while
     * the application is still stopping). An empty {@code sample.postgres.data-directory} gives a new, temporary
     * server at each start, as the sample's tests use.
     */
    @Bean(destroyMethod = "close")
    EmbeddedPostgres embeddedPostgres(
            @Value("${sample.postgres.data-directory:}") String dataDirectory,
            @Value("${sample.postgres.wipe:false}") boolean wipe)
            throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setRegisterShutdownHook(false);
        if (dataDirectory.isBlank()) {
            return builder.start();
        }
        Path directory = Path.of(dataDirectory).toAbsolutePath();
        if (wipe) {
            FileSystemUtils.deleteRecursively(directory);
        }
        Files.createDirectories(directory);
        return builder.setDataDirectory(directory).setCleanDataDirectory(false).start();
    }

    @Bean
    DataSource dataSource(EmbeddedPostgres embeddedPostgres) {
        return DataSourceBuilder.create()
                .url(embeddedPostgres.getJdbcUrl("postgres", "postgres"))
                .build();
    }
}
