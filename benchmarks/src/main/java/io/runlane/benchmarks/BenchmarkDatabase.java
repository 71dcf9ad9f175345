package io.runlane.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/** The database a benchmark run uses: an existing server (--jdbc-url) or an embedded PostgreSQL. */
final class BenchmarkDatabase implements AutoCloseable {

    private final @Nullable EmbeddedPostgres embedded;

    private final String jdbcUrl;

    private BenchmarkDatabase(@Nullable EmbeddedPostgres embedded, String jdbcUrl) {
        this.embedded = embedded;
        this.jdbcUrl = jdbcUrl;
    }

    static BenchmarkDatabase open(@Nullable String jdbcUrl) throws IOException {
        if (jdbcUrl != null) {
            return new BenchmarkDatabase(null, jdbcUrl);
        }
        EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setServerConfig("max_connections", "200")
                .start();
        return new BenchmarkDatabase(postgres, postgres.getJdbcUrl("postgres", "postgres"));
    }

    HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        return new HikariDataSource(config);
    }

    String describe() {
        return embedded != null ? "embedded PostgreSQL" : redact(jdbcUrl);
    }

    static String redact(String jdbcUrl) {
        return jdbcUrl.replaceAll("password=[^&]*", "password=***");
    }

    String serverVersion(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SHOW server_version", String.class);
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}
