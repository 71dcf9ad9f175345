package io.runlane.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.springframework.jdbc.core.JdbcTemplate;

/** The machine, Java and PostgreSQL a run measured on, for the head of the results. */
record MachineDescription(
        int cores,
        String cpu,
        String memory,
        String operatingSystem,
        String java,
        String postgres,
        String postgresSettings) {

    /**
     * Settings that change what a commit or a read costs, or which plans the server keeps (autovacuum also analyses
     * tables), so that results from different servers compare.
     */
    private static final String SETTINGS = """
            SELECT 'fsync=' || current_setting('fsync') || ', synchronous_commit=' || current_setting('synchronous_commit')
                   || ', shared_buffers=' || current_setting('shared_buffers')
                   || ', max_connections=' || current_setting('max_connections')
                   || ', autovacuum=' || current_setting('autovacuum')
            """;

    static MachineDescription describe(BenchmarkDatabase database, JdbcTemplate jdbc) {
        return new MachineDescription(
                Runtime.getRuntime().availableProcessors(),
                cpuModel(),
                ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                        ? String.format(Locale.ROOT, "%.1f GiB", os.getTotalMemorySize() / (1024.0 * 1024 * 1024))
                        : "unknown",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                database.serverVersion(jdbc) + " (" + database.describe() + ")",
                jdbc.queryForObject(SETTINGS, String.class));
    }

    /** The load average over 1, 5 and 15 minutes, as {@code uptime} prints it. */
    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + ", " + fields[1] + ", " + fields[2];
        } catch (IOException | RuntimeException ex) {
            return oneMinuteLoad() + " (1 min)";
        }
    }

    /** The load average over the last minute. */
    static String oneMinuteLoad() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", load);
    }

    private static String cpuModel() {
        try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown CPU");
        } catch (IOException | RuntimeException ex) {
            return "unknown CPU";
        }
    }
}
