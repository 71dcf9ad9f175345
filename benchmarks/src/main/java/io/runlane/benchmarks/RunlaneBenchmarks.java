package io.runlane.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.internal.ExecutionSettings;
import io.runlane.internal.RunlaneEngine;
import io.runlane.internal.RunlaneSettings;
import io.runlane.internal.registry.TaskDefinitionReader;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.schema.RunlaneSchemaInitializer;
import io.runlane.internal.trigger.BeanValidationPayloadValidator;
import io.runlane.internal.trigger.PayloadCodec;
import jakarta.validation.Validation;
import jakarta.validation.constraints.NotBlank;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Measures Runlane against plain JDBC doing the minimum the same work needs, on the same database and threads, in
 * one process run. Usage: {@code java -jar benchmarks/target/runlane-benchmarks.jar [--quick] [--jdbc-url URL]
 * [--results PATH]}.
 */
public final class RunlaneBenchmarks {

    private static final String SCHEMA = "runlane_bench";

    /** The benchmark's task: a payload like a typical business reference, keyed by it. */
    @Task(id = "bench.trigger")
    public static final class BenchTask implements TaskHandler<BenchTask.Payload> {

        public record Payload(@NotBlank String orderId) {}

        @Override
        public String idempotencyKey(Payload payload) {
            return "order." + payload.orderId();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    /** Does nothing but note when it started, for end-to-end and latency scenarios. */
    @Task(id = "bench.noop")
    public static final class NoopTask implements TaskHandler<NoopTask.Payload> {

        public record Payload(int index) {}

        static final java.util.concurrent.atomic.AtomicLong COMPLETED = new java.util.concurrent.atomic.AtomicLong();

        static volatile java.util.concurrent.CompletableFuture<Long> started =
                new java.util.concurrent.CompletableFuture<>();

        @Override
        public void run(Payload payload, RunContext context) {
            started.complete(System.nanoTime());
            COMPLETED.incrementAndGet();
        }
    }

    private record Row(
            String scenario,
            int threads,
            Measurement.Rounds subject,
            Measurement.Rounds baseline,
            String baselineName) {

        double ratio() {
            return subject.median() / baseline.median();
        }
    }

    /** Held so that the logger, and the level set on it, are not garbage collected. */
    private static final java.util.logging.Logger LIQUIBASE_LOG = java.util.logging.Logger.getLogger("liquibase");

    public static void main(String[] args) throws Exception {
        LIQUIBASE_LOG.setLevel(java.util.logging.Level.WARNING);
        boolean quick = false;
        String jdbcUrl = null;
        Path results = Path.of("benchmarks", "RESULTS.md");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--jdbc-url" -> jdbcUrl = args[++i];
                case "--results" -> results = Path.of(args[++i]);
                default ->
                    throw new IllegalArgumentException(
                            "Unknown argument: " + args[i] + " (expected --quick, --jdbc-url URL, --results PATH)");
            }
        }
        long roundMillis = quick ? 1_000 : 5_000;
        int rounds = quick ? 1 : 3;
        String latencyReport;
        try (BenchmarkDatabase database = BenchmarkDatabase.open(jdbcUrl);
                HikariDataSource pool = database.pool(16)) {
            JdbcTemplate jdbc = new JdbcTemplate(pool);
            jdbc.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            new RunlaneSchemaInitializer(pool, SCHEMA).initialize();
            jdbc.execute("CREATE TABLE " + SCHEMA + ".baseline (id uuid PRIMARY KEY, payload jsonb NOT NULL,"
                    + " created_at timestamptz NOT NULL DEFAULT now())");
            RunlaneTemplate runlane = engine(pool).template();
            List<Row> rows = new ArrayList<>();
            for (int threads : quick ? new int[] {1, 4} : new int[] {1, 4, 16}) {
                rows.add(triggerNewRuns(runlane, jdbc, threads, roundMillis, rounds));
            }
            rows.add(triggerDuplicates(runlane, jdbc, 4, roundMillis, rounds));
            rows.add(endToEnd(pool, jdbc, quick ? 5_000 : 100_000));
            latencyReport = latency(pool, quick ? 50 : 300);
            String report = report(database, jdbc, rows, quick) + latencyReport;
            System.out.println(report);
            Files.createDirectories(results.toAbsolutePath().getParent());
            Files.writeString(results, report);
            System.out.println("Written to " + results.toAbsolutePath());
        }
    }

    private static RunlaneEngine engine(HikariDataSource pool) {
        return engine(pool, ExecutionSettings.defaults());
    }

    private static RunlaneEngine engine(HikariDataSource pool, ExecutionSettings execution) {
        RunlaneSettings settings = RunlaneSettings.defaults(SCHEMA);
        PayloadCodec payloads = new PayloadCodec(
                JsonMapper.builder().findAndAddModules().build(),
                new BeanValidationPayloadValidator(
                        Validation.buildDefaultValidatorFactory().getValidator()));
        TaskDefinitionReader reader = new TaskDefinitionReader(settings);
        TaskRegistry tasks = new TaskRegistry(List.of(reader.read(new BenchTask()), reader.read(new NoopTask())));
        return new RunlaneEngine(
                pool,
                new JdbcTransactionManager(pool),
                settings,
                execution,
                tasks,
                payloads,
                io.runlane.internal.EngineListener.NONE);
    }

    /**
     * End-to-end: {@code runs} no-op runs drained by one instance with 8 workers, against a plain JDBC loop that
     * claims batches with FOR UPDATE SKIP LOCKED and completes each row, with 8 threads.
     */
    private static Row endToEnd(HikariDataSource pool, JdbcTemplate jdbc, int runs) throws Exception {
        RunlaneEngine engine =
                engine(pool, ExecutionSettings.defaults().withWorker(8, java.time.Duration.ofMillis(100)));
        for (int offset = 0; offset < runs; offset += 1000) {
            int from = offset;
            engine.template()
                    .triggerAll(java.util.stream.IntStream.range(from, Math.min(runs, from + 1000))
                            .mapToObj(i -> io.runlane.TriggerRequest.of("bench.noop", new NoopTask.Payload(i)))
                            .toList());
        }
        long completedBefore = NoopTask.COMPLETED.get();
        long began = System.nanoTime();
        engine.worker().start();
        while (jdbc.queryForObject(
                        "SELECT count(*) FROM " + SCHEMA + ".runs WHERE task_id = 'bench.noop'"
                                + " AND finished_at IS NULL",
                        Long.class)
                > 0) {
            Thread.sleep(50);
        }
        double runlaneSeconds = (System.nanoTime() - began) / 1e9;
        engine.worker().stop();
        long executed = NoopTask.COMPLETED.get() - completedBefore;

        jdbc.execute(
                "CREATE TABLE IF NOT EXISTS " + SCHEMA + ".plain_jobs (id bigserial PRIMARY KEY, status text NOT NULL,"
                        + " run_at timestamptz NOT NULL DEFAULT now(), locked_by text, finished_at timestamptz)");
        jdbc.execute("CREATE INDEX IF NOT EXISTS plain_jobs_due ON " + SCHEMA
                + ".plain_jobs (run_at) WHERE status = 'QUEUED'");
        jdbc.update("INSERT INTO " + SCHEMA + ".plain_jobs (status) SELECT 'QUEUED' FROM generate_series(1, ?)", runs);
        String claim =
                "UPDATE " + SCHEMA + ".plain_jobs SET status = 'RUNNING', locked_by = ? WHERE id IN (SELECT id FROM "
                        + SCHEMA + ".plain_jobs WHERE status = 'QUEUED' AND run_at <= now() ORDER BY run_at LIMIT 8"
                        + " FOR UPDATE SKIP LOCKED) RETURNING id";
        String complete = "UPDATE " + SCHEMA + ".plain_jobs SET status = 'DONE', finished_at = now() WHERE id = ?"
                + " AND status = 'RUNNING'";
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
        long plainBegan = System.nanoTime();
        List<java.util.concurrent.Future<Integer>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            String worker = "plain-" + t;
            done.add(threads.submit(() -> {
                int count = 0;
                while (true) {
                    List<Long> ids = jdbc.queryForList(claim, Long.class, worker);
                    if (ids.isEmpty()) {
                        return count;
                    }
                    for (Long id : ids) {
                        jdbc.update(complete, id);
                        count++;
                    }
                }
            }));
        }
        long plainDone = 0;
        for (java.util.concurrent.Future<Integer> future : done) {
            plainDone += future.get();
        }
        double plainSeconds = (System.nanoTime() - plainBegan) / 1e9;
        threads.shutdown();
        System.out.printf(
                Locale.ROOT,
                "end-to-end: Runlane %d runs in %.2f s, plain JDBC %d in %.2f s%n",
                executed,
                runlaneSeconds,
                plainDone,
                plainSeconds);
        return new Row(
                "end-to-end, " + runs + " no-op runs, 8 workers",
                8,
                new Measurement.Rounds(List.of(executed / runlaneSeconds)),
                new Measurement.Rounds(List.of(plainDone / plainSeconds)),
                "JDBC claim (SKIP LOCKED, batch 8) + complete");
    }

    /** Trigger-to-start latency with an idle worker: from the trigger call to the handler's first line. */
    private static String latency(HikariDataSource pool, int samples) throws Exception {
        RunlaneEngine engine =
                engine(pool, ExecutionSettings.defaults().withWorker(8, java.time.Duration.ofSeconds(1)));
        engine.worker().start();
        Thread.sleep(500);
        List<Double> millis = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            java.util.concurrent.CompletableFuture<Long> started = new java.util.concurrent.CompletableFuture<>();
            NoopTask.started = started;
            long before = System.nanoTime();
            engine.template().trigger("bench.noop", new NoopTask.Payload(i), TriggerOptions.none());
            long at = started.get(10, java.util.concurrent.TimeUnit.SECONDS);
            millis.add((at - before) / 1e6);
            Thread.sleep(20);
        }
        engine.worker().stop();
        List<Double> sorted = millis.stream().sorted().toList();
        double p50 = sorted.get((int) Math.floor(0.50 * (sorted.size() - 1)));
        double p99 = sorted.get((int) Math.floor(0.99 * (sorted.size() - 1)));
        return String.format(
                Locale.ROOT,
                "%n| latency, idle worker (%d samples) | p50 ms | p99 ms | max ms |%n|---|---:|---:|---:|%n"
                        + "| trigger to handler start | %.1f | %.1f | %.1f |%n",
                samples,
                p50,
                p99,
                sorted.get(sorted.size() - 1));
    }

    /** Trigger of new runs with idempotency keys vs a plain single-row insert with commit. */
    private static Row triggerNewRuns(RunlaneTemplate runlane, JdbcTemplate jdbc, int threads, long millis, int rounds)
            throws Exception {
        String insert = "INSERT INTO " + SCHEMA + ".baseline (id, payload) VALUES (?, cast(? AS jsonb))";
        String prefix = UUID.randomUUID().toString();
        Measurement.Rounds[] measured = Measurement.compare(
                threads,
                millis,
                rounds,
                (worker, sequence) -> runlane.trigger(
                        "bench.trigger", new BenchTask.Payload(prefix + "-" + sequence), TriggerOptions.none()),
                (worker, sequence) ->
                        jdbc.update(insert, UUID.randomUUID(), "{\"orderId\":\"" + prefix + "-" + sequence + "\"}"));
        return new Row("trigger, new runs", threads, measured[0], measured[1], "JDBC insert + commit");
    }

    /** Trigger with an existing key (RETURNED_EXISTING) vs a plain primary-key lookup. */
    private static Row triggerDuplicates(
            RunlaneTemplate runlane, JdbcTemplate jdbc, int threads, long millis, int rounds) throws Exception {
        int keys = 1_000;
        String prefix = "dup-" + UUID.randomUUID();
        List<UUID> baselineIds = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            runlane.trigger("bench.trigger", new BenchTask.Payload(prefix + "-" + i), TriggerOptions.none());
            UUID id = UUID.randomUUID();
            jdbc.update("INSERT INTO " + SCHEMA + ".baseline (id, payload) VALUES (?, cast(? AS jsonb))", id, "{}");
            baselineIds.add(id);
        }
        String lookup = "SELECT id, payload::text, created_at FROM " + SCHEMA + ".baseline WHERE id = ?";
        Measurement.Rounds[] measured = Measurement.compare(
                threads,
                millis,
                rounds,
                (worker, sequence) -> runlane.trigger(
                        "bench.trigger",
                        new BenchTask.Payload(
                                prefix + "-" + ThreadLocalRandom.current().nextInt(keys)),
                        TriggerOptions.none()),
                (worker, sequence) -> jdbc.queryForMap(
                        lookup, baselineIds.get(ThreadLocalRandom.current().nextInt(keys))));
        return new Row("trigger, duplicates", threads, measured[0], measured[1], "JDBC primary-key lookup");
    }

    private static String report(BenchmarkDatabase database, JdbcTemplate jdbc, List<Row> rows, boolean quick)
            throws IOException {
        StringBuilder out = new StringBuilder();
        out.append("# Runlane benchmark results\n\n");
        out.append("- date: ")
                .append(LocalDate.now())
                .append(quick ? " (quick mode: 1 round of 1 s)" : " (3 rounds of 5 s after a warm-up round)")
                .append('\n');
        out.append("- machine: ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, ")
                .append(
                        ManagementFactory.getOperatingSystemMXBean()
                                        instanceof com.sun.management.OperatingSystemMXBean os
                                ? os.getTotalMemorySize() / (1024 * 1024 * 1024) + " GiB memory"
                                : "memory unknown")
                .append('\n');
        out.append("- Java: ")
                .append(System.getProperty("java.vm.name"))
                .append(' ')
                .append(System.getProperty("java.version"))
                .append('\n');
        out.append("- PostgreSQL: ")
                .append(database.serverVersion(jdbc))
                .append(" (")
                .append(database.describe())
                .append(")\n\n");
        out.append(
                "| scenario | threads | Runlane ops/s (median, min-max) | baseline | baseline ops/s (median, min-max) | ratio |\n");
        out.append("|---|---:|---:|---|---:|---:|\n");
        for (Row row : rows) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %.0f (%.0f-%.0f) | %s | %.0f (%.0f-%.0f) | %.2f |%n",
                    row.scenario(),
                    row.threads(),
                    row.subject().median(),
                    row.subject().min(),
                    row.subject().max(),
                    row.baselineName(),
                    row.baseline().median(),
                    row.baseline().min(),
                    row.baseline().max(),
                    row.ratio()));
        }
        return out.toString();
    }

    private RunlaneBenchmarks() {}
}
