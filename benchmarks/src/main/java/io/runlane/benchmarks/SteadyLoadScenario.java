package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.lifecycle.RunRowMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Trigger-to-start latency under a steady load: producers trigger 1,000 runs/s of a no-op task on a fixed schedule
 * (run {@code i} is due {@code i} ms after the round starts; several producer threads, so that one slow trigger does
 * not hold back the next) while one worker with the default settings (8 slots, 1 s poll interval) executes them. The
 * latency of each run is from its trigger call to the first line of its handler.
 *
 * <p>The runs table first holds {@link #HISTORY} finished runs and is analysed, as on a system that has been running
 * a while. Straight after the TRUNCATE that every scenario starts with, the planner's statistics describe an empty
 * table; when autovacuum is busy with the earlier scenarios' tables, the plans cached then stay until an ANALYZE, and
 * with autovacuum off this scenario's batch completions took 5 ms each by sequential scans, so that the worker fell
 * behind the producers.
 *
 * <p>Each round also counts the bytes the JVM allocated per run ({@link AllocationMeter}): every thread's, from the
 * first trigger until the last run has started, with the producers' counted only within their trigger calls (what
 * they allocate around them, pacing and payload records, is the benchmark's own and is reported apart). The embedded
 * PostgreSQL is another process and is not counted. After each round, a plain JDBC insert of a started run's row shows
 * what the driver alone allocates for a trigger's statement ({@link #driverBytesPerTrigger}), the floor of that figure.
 */
final class SteadyLoadScenario implements Scenario {

    private static final int RUNS_PER_SECOND = 1_000;

    private static final int PRODUCERS = 4;

    /** Finished runs in the table before the first round. */
    private static final int HISTORY = 100_000;

    /** Plain JDBC inserts per round for the driver's share of a trigger ({@link #driverBytesPerTrigger}). */
    private static final int DRIVER_INSERTS = 2_000;

    /** The lease owner of the rows {@link #driverBytesPerTrigger} inserts: a worker id's length, no worker's. */
    private static final String FLOOR_LEASE_OWNER = "worker-0-" + new UUID(0, 0);

    /**
     * A started run's row, as the trigger's statement stores it (S-EX-36) and with the values it binds, answered with
     * {@code RETURNING *}.
     */
    private static final String STARTED_ROW = """
            INSERT INTO %s.runs (id, environment, task_id, queue, status, payload, idempotency_key,
                                 idempotency_key_ttl_ms, singleton_key, concurrency_key, max_attempts, run_at,
                                 created_at, updated_at, source_type, source_run_id, created_scheduled, trace_context,
                                 priority, attempts, fencing_token, lease_owner, lease_expires_at, last_event_seq)
            VALUES (?, ?, ?, ?, 'RUNNING', cast(? AS jsonb), ?, ?, ?, ?, ?, statement_timestamp(),
                    statement_timestamp(), statement_timestamp(), ?, cast(? AS uuid), false, cast(? AS jsonb), ?, 1, 1,
                    ?, statement_timestamp() + ? * interval '1 millisecond', 2)
            RETURNING *
            """.formatted(BenchmarkContext.SCHEMA);

    /** How long to wait, after the last trigger, for every run of a round to start. */
    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    @Override
    public String name() {
        return "latency, steady load";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        new RetainedRuns(context.jdbc(), BenchmarkContext.SCHEMA)
                .insert(context.options().size(HISTORY, HISTORY / 10), "history-" + UUID.randomUUID() + "-");
        context.vacuumAnalyzeRunlane();
        int seconds = context.options().size(20, 3);
        RunlaneEngine engine = context.engine(ExecutionSettings.defaults());
        engine.worker().start();
        try {
            round(engine.template(), 0, RUNS_PER_SECOND * context.options().size(5, 1));
            List<Latencies> rounds = new ArrayList<>();
            List<Latencies> calls = new ArrayList<>();
            List<Latencies> pickUps = new ArrayList<>();
            List<Double> rates = new ArrayList<>();
            List<Double> kilobytesPerRun = new ArrayList<>();
            List<Double> overheadPerRun = new ArrayList<>();
            List<Integer> threadsEnded = new ArrayList<>();
            List<Double> driverShare = new ArrayList<>();
            for (int round = 1; round <= context.options().rounds(); round++) {
                Round measured = round(engine.template(), round, RUNS_PER_SECOND * seconds);
                driverShare.add(driverBytesPerTrigger(context.pool(), DRIVER_INSERTS));
                rounds.add(measured.latencies());
                calls.add(measured.calls());
                pickUps.add(measured.pickUps());
                rates.add(measured.triggersPerSecond());
                kilobytesPerRun.add(measured.bytesPerRun() / 1024);
                overheadPerRun.add(measured.overheadBytesPerRun());
                threadsEnded.add(measured.threadsEnded());
                context.progress(
                        "latency, steady load, round %d: %.0f triggers/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms;"
                                + " trigger call p99 %.2f ms, return to start p99 %.2f ms; %.0f bytes allocated per"
                                + " run (benchmark's own %.0f; a plain JDBC insert of the row %.0f)",
                        round,
                        measured.triggersPerSecond(),
                        measured.latencies().p50(),
                        measured.latencies().p99(),
                        measured.latencies().max(),
                        measured.calls().p99(),
                        measured.pickUps().p99(),
                        measured.bytesPerRun(),
                        measured.overheadBytesPerRun(),
                        driverShare.get(driverShare.size() - 1));
            }
            String load = String.format(Locale.ROOT, "%,d runs/s steady load, %d s", RUNS_PER_SECOND, seconds);
            Latencies.Series series = new Latencies.Series("trigger to handler start, " + load, rounds);
            report.latency(series);
            report.latency(new Latencies.Series("of which the trigger call, " + load, calls));
            report.latency(new Latencies.Series("of which trigger return to handler start, " + load, pickUps));
            report.figure("steady load: triggers per second achieved by the paced producers", new Rounds(rates), 0);
            report.target(
                    Goal.STEADY_LOAD_LATENCY,
                    series.p99(),
                    String.format(
                            Locale.ROOT,
                            "the median of the rounds' p99, %,d runs per round at %.0f triggers/s achieved; p50 %s"
                                    + " ms, max %s ms",
                            series.samplesPerRound(),
                            new Rounds(rates).median(),
                            ResultsWriter.format(series.p50().median()),
                            ResultsWriter.format(series.max().median())));
            report.figure(
                    "steady load: bytes allocated per run by the benchmark's producers outside trigger calls (not"
                            + " counted in the target)",
                    new Rounds(overheadPerRun),
                    0);
            report.figure(
                    "steady load: bytes a plain JDBC insert of a started run's row allocates, RETURNING * read as the"
                            + " trigger's answer (the driver's share of a trigger, the floor of the bytes per run)",
                    new Rounds(driverShare),
                    0);
            report.target(
                    Goal.STEADY_LOAD_ALLOCATION,
                    new Rounds(kilobytesPerRun),
                    String.format(
                            Locale.ROOT,
                            "1 KB = 1,024 bytes; every thread's heap allocation from the first trigger until the last"
                                    + " run started, by HotSpot's per-thread counters, ÷ %,d runs; the producers' only"
                                    + " within trigger calls; %s thread(s) ended within a round",
                            series.samplesPerRound(),
                            threadsEnded));
        } finally {
            engine.worker().stop();
        }
    }

    /**
     * One round's figures.
     *
     * @param bytesPerRun the bytes allocated per run by every thread but the benchmark's (whose trigger calls count)
     * @param overheadBytesPerRun the bytes per run that the benchmark's own threads allocated outside trigger calls
     * @param threadsEnded threads that ended during the round
     */
    private record Round(
            Latencies latencies,
            Latencies calls,
            Latencies pickUps,
            double triggersPerSecond,
            double bytesPerRun,
            double overheadBytesPerRun,
            int threadsEnded) {}

    /** Triggers {@code runs} runs at the steady rate, waits until each has started, and returns the latencies. */
    private static Round round(RunlaneTemplate template, int round, int runs) throws Exception {
        AtomicLongArray started = new AtomicLongArray(runs);
        BenchmarkTasks.TimedTask.startTimes = new BenchmarkTasks.TimedTask.StartTimes(round, started);
        long[] triggered = new long[runs];
        long[] returned = new long[runs];
        AtomicInteger next = new AtomicInteger();
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) / RUNS_PER_SECOND;
        Set<Long> benchmarkThreads = ConcurrentHashMap.newKeySet();
        benchmarkThreads.add(Thread.currentThread().getId());
        LongAdder inTriggerCalls = new LongAdder();
        AllocationMeter allocation = AllocationMeter.start();
        long began = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
        ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                done.add(producers.submit(() -> {
                    benchmarkThreads.add(Thread.currentThread().getId());
                    long allocatedInCalls = 0;
                    for (int i = next.getAndIncrement(); i < runs; i = next.getAndIncrement()) {
                        long due = began + i * intervalNanos;
                        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                            LockSupport.parkNanos(wait);
                        }
                        BenchmarkTasks.TimedTask.Payload payload = new BenchmarkTasks.TimedTask.Payload(round, i);
                        triggered[i] = System.nanoTime();
                        long before = AllocationMeter.allocatedByThisThread();
                        template.trigger(BenchmarkTasks.TIMED, payload, TriggerOptions.none());
                        allocatedInCalls += AllocationMeter.allocatedByThisThread() - before;
                        returned[i] = System.nanoTime();
                    }
                    inTriggerCalls.add(allocatedInCalls);
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            producers.shutdown();
        }
        double triggersPerSecond = runs / ((System.nanoTime() - began) / 1e9);
        awaitStarted(started);
        AllocationMeter.Allocation allocated = allocation.stop(benchmarkThreads);
        long engineBytes = allocated.bytes() + inTriggerCalls.sum();
        long overheadBytes = allocated.excludedBytes() - inTriggerCalls.sum();
        List<Double> millis = new ArrayList<>(runs);
        List<Double> calls = new ArrayList<>(runs);
        List<Double> pickUps = new ArrayList<>(runs);
        for (int i = 0; i < runs; i++) {
            millis.add((started.get(i) - triggered[i]) / 1e6);
            calls.add((returned[i] - triggered[i]) / 1e6);
            pickUps.add(Math.max(0, started.get(i) - returned[i]) / 1e6);
        }
        return new Round(
                new Latencies(millis),
                new Latencies(calls),
                new Latencies(pickUps),
                triggersPerSecond,
                (double) engineBytes / runs,
                (double) overheadBytes / runs,
                allocated.threadsEnded());
    }

    /**
     * What the pool and the driver alone allocate for the statement of a trigger that starts its run at once: a plain
     * JDBC insert of the same row on a connection borrowed for it, its {@code RETURNING *} read into a {@code Run} as
     * the trigger reads its answer ({@link RunRowMapper#INSERTED_DUE_NOW}), on this thread, after as many inserts again
     * to warm up. No run allocates less than this, before any claim, completion or payload conversion. The rows are
     * deleted afterwards.
     */
    private static double driverBytesPerTrigger(DataSource dataSource, int inserts) throws SQLException {
        insertStartedRows(dataSource, inserts);
        long before = AllocationMeter.allocatedByThisThread();
        insertStartedRows(dataSource, inserts);
        double bytes = (double) (AllocationMeter.allocatedByThisThread() - before) / inserts;
        new JdbcTemplate(dataSource)
                .update("DELETE FROM " + BenchmarkContext.SCHEMA + ".runs WHERE lease_owner = ?", FLOOR_LEASE_OWNER);
        return bytes;
    }

    private static void insertStartedRows(DataSource dataSource, int inserts) throws SQLException {
        for (int i = 0; i < inserts; i++) {
            try (Connection connection = dataSource.getConnection();
                    PreparedStatement insert = connection.prepareStatement(STARTED_ROW)) {
                insert.setObject(1, UUID.randomUUID(), Types.OTHER);
                insert.setString(2, "default");
                insert.setString(3, BenchmarkTasks.TIMED);
                insert.setString(4, "default");
                insert.setString(5, "{\"round\":-1,\"index\":" + i + "}");
                insert.setNull(6, Types.VARCHAR);
                insert.setNull(7, Types.BIGINT);
                insert.setNull(8, Types.VARCHAR);
                insert.setNull(9, Types.VARCHAR);
                insert.setInt(10, 3);
                insert.setNull(11, Types.VARCHAR);
                insert.setNull(12, Types.VARCHAR);
                insert.setNull(13, Types.VARCHAR);
                insert.setShort(14, (short) 0);
                insert.setString(15, FLOOR_LEASE_OWNER);
                insert.setLong(16, 60_000L);
                try (ResultSet row = insert.executeQuery()) {
                    row.next();
                    RunRowMapper.INSERTED_DUE_NOW.mapRow(row, 0);
                    row.getLong("fencing_token");
                    row.getString("trace_context");
                }
            }
        }
    }

    private static void awaitStarted(AtomicLongArray started) throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
        for (int i = 0; i < started.length(); i++) {
            while (started.get(i) == 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "Run " + i + " of " + started.length() + " had not started 30 s after the last trigger");
                }
                Thread.sleep(5);
            }
        }
    }
}
