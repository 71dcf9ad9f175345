package io.runlane.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What work costs the database and this process, so that a figure can say what a run costs in core time and in WAL
 * rather than in wall time, which the other work on a shared machine distorts: the CPU time of the database server
 * and of this process, and the WAL the server wrote. The database's CPU time is read from Linux's {@code /proc}: the
 * server's postmaster (the parent of this connection's backend), the children it has reaped and its live children
 * (backends, WAL writer, checkpointer). It is known only when the server runs on this machine and {@code /proc} shows
 * it; otherwise it reads {@code null}. The WAL position is read from the server itself, wherever it runs.
 */
final class CostMeter {

    /** Linux reports process times in clock ticks of {@code USER_HZ}, 100 per second on every common kernel. */
    private static final double TICKS_PER_SECOND = 100;

    private static final String WAL_POSITION = "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8";

    /**
     * The CPU seconds used so far by the database (or {@code null} when unknown) and by this process, and the
     * server's WAL position in bytes (the WAL of every database on the server, so nothing else should write meanwhile).
     */
    record Reading(@Nullable Double database, double application, double walBytes) {

        /** What was used since {@code earlier}. */
        Reading since(Reading earlier) {
            Double databaseSeconds = database == null || earlier.database == null ? null : database - earlier.database;
            return new Reading(databaseSeconds, application - earlier.application, walBytes - earlier.walBytes);
        }
    }

    private final JdbcTemplate jdbc;

    private final long postmaster;

    private CostMeter(JdbcTemplate jdbc, long postmaster) {
        this.jdbc = jdbc;
        this.postmaster = postmaster;
    }

    /** A meter for the server behind {@code jdbc}; its database CPU reads {@code null} if the server is elsewhere. */
    static CostMeter of(JdbcTemplate jdbc) {
        try {
            Long backend = jdbc.queryForObject("SELECT pg_backend_pid()", Long.class);
            long[] stat = stat(Path.of("/proc", String.valueOf(backend), "stat"));
            if (stat != null && Files.isReadable(Path.of("/proc", String.valueOf(stat[0]), "stat"))) {
                return new CostMeter(jdbc, stat[0]);
            }
        } catch (RuntimeException ex) {
            // not a local Linux server: the database's CPU time is unknown
        }
        return new CostMeter(jdbc, -1);
    }

    Reading read() {
        Double wal = jdbc.queryForObject(WAL_POSITION, Double.class);
        return new Reading(databaseSeconds(), applicationSeconds(), wal == null ? 0 : wal);
    }

    private @Nullable Double databaseSeconds() {
        if (postmaster < 0) {
            return null;
        }
        long[] own = stat(Path.of("/proc", String.valueOf(postmaster), "stat"));
        if (own == null) {
            return null;
        }
        long ticks = own[1] + own[2];
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                long[] child = stat(process.resolve("stat"));
                if (child != null && child[0] == postmaster) {
                    ticks += child[1] + child[2];
                }
            }
        } catch (IOException ex) {
            return null;
        }
        return ticks / TICKS_PER_SECOND;
    }

    private static double applicationSeconds() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime() / 1e9;
        }
        return 0;
    }

    /**
     * The parent pid, then the process's own CPU ticks (user + system) and those of its reaped children, from a
     * {@code /proc/<pid>/stat} file; {@code null} if it cannot be read (the process ended meanwhile).
     */
    private static long @Nullable [] stat(Path file) {
        String line;
        try {
            line = Files.readString(file);
        } catch (IOException ex) {
            return null;
        }
        // after the command name in parentheses: state, ppid, ..., utime (14th field), stime, cutime, cstime
        String[] fields = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
        long parent = Long.parseLong(fields[1]);
        long own = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        long children = Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
        return new long[] {parent, own, children};
    }
}
