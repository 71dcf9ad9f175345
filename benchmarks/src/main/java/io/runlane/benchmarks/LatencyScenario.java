package io.runlane.benchmarks;

import io.runlane.TriggerOptions;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.kernel.ExecutionSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Trigger-to-start latency with an idle worker (8 slots, the default 1 s poll interval): from the trigger call to the
 * first line of the handler. The trigger's one commit stores the run claimed by the idle worker, which starts it on a
 * free slot (S-EX-36), so the yardstick is a plain JDBC insert and its commit, measured in the same rounds. For
 * reference, the same with {@code start-on-trigger} off, where the worker learns of the run from the trigger's
 * notification and claims it, and that path in plain JDBC: an insert and its commit, then a waiting thread that updates the row and
 * commits, as a claim does. Two commits in a row are what any trigger-then-claim design pays; on an idle machine
 * each costs more than under load.
 */
final class LatencyScenario implements Scenario {

    private static final long PAUSE_MILLIS = 20;

    @Override
    public String name() {
        return "latency";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        int samples = context.options().size(200, 50);
        RunlaneEngine engine = context.engine(ExecutionSettings.defaults());
        RunlaneEngine twoCommits = context.engine(
                ExecutionSettings.defaults().toBuilder().startOnTrigger(false).build());
        engine.worker().start();
        twoCommits.worker().start();
        try {
            sample(engine, context.options().size(50, 10));
            sample(twoCommits, context.options().size(50, 10));
            List<Latencies> rounds = new ArrayList<>();
            List<Latencies> calls = new ArrayList<>();
            List<Latencies> pickUps = new ArrayList<>();
            List<Latencies> claimed = new ArrayList<>();
            List<Latencies> inserts = new ArrayList<>();
            List<Latencies> floors = new ArrayList<>();
            for (int round = 0; round < context.options().rounds(); round++) {
                Latencies[] sampled = sample(engine, samples);
                rounds.add(sampled[0]);
                calls.add(sampled[1]);
                pickUps.add(sampled[2]);
                inserts.add(plainInsert(context.jdbc(), samples));
                claimed.add(sample(twoCommits, samples)[0]);
                floors.add(plainInsertThenClaim(context.jdbc(), samples));
            }
            Latencies.Series series = new Latencies.Series("trigger to handler start, idle worker", rounds);
            report.latency(series);
            Latencies.Series call = new Latencies.Series("of which the trigger call, idle worker", calls);
            report.latency(call);
            Latencies.Series pickUp =
                    new Latencies.Series("of which trigger return to handler start, idle worker", pickUps);
            report.latency(pickUp);
            Latencies.Series insert = new Latencies.Series("plain JDBC: insert + commit, idle", inserts);
            report.latency(insert);
            Latencies.Series viaClaim = new Latencies.Series(
                    "trigger to handler start, idle worker, start-on-trigger off (trigger, then a claim)", claimed);
            report.latency(viaClaim);
            Latencies.Series floor = new Latencies.Series(
                    "plain JDBC: insert + commit, then a waiting thread's update + commit, idle", floors);
            report.latency(floor);
            Rounds ratio = report.ratio(
                    "trigger-to-start p99 ÷ plain JDBC insert + commit p99, idle",
                    series.p99(),
                    insert.p99(),
                    "the rounds' p99s, the two measured one after the other in each round");
            context.progress(
                    "latency, idle worker: p50 %s ms, p99 %s ms (÷ plain insert + commit p99 %s ms: %s); trigger call"
                            + " p99 %s ms, return to start p99 %s ms; start-on-trigger off p99 %s ms; plain JDBC"
                            + " insert then update p50 %s ms, p99 %s ms",
                    series.p50().format(2),
                    series.p99().format(2),
                    insert.p99().format(2),
                    ratio.format(2),
                    call.p99().format(2),
                    pickUp.p99().format(2),
                    viaClaim.p99().format(2),
                    floor.p50().format(2),
                    floor.p99().format(2));
            report.target(
                    Goal.IDLE_LATENCY,
                    series.p99(),
                    "the median of the rounds' p99, " + samples + " samples per round; plain JDBC insert + commit"
                            + " then another thread's update + commit: p99 "
                            + floor.p99().format(2) + " ms");
            report.target(
                    Goal.IDLE_LATENCY_VS_INSERT,
                    ratio,
                    "per round: trigger-to-start p99 " + series.p99().format(2) + " ms ÷ plain insert + commit p99 "
                            + insert.p99().format(2) + " ms; with start-on-trigger off (two commits) p99 "
                            + viaClaim.p99().format(2) + " ms");
        } finally {
            engine.worker().stop();
            twoCommits.worker().stop();
        }
    }

    /** A plain single-row insert in its own commit, with the same pauses as the trigger samples, in milliseconds. */
    private static Latencies plainInsert(JdbcTemplate jdbc, int samples) throws Exception {
        String insert =
                "INSERT INTO " + BenchmarkContext.SCHEMA + ".baseline (id, payload) VALUES (?, cast(? AS jsonb))";
        List<Double> millis = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            long before = System.nanoTime();
            jdbc.update(insert, UUID.randomUUID(), "{\"index\":" + i + "}");
            millis.add((System.nanoTime() - before) / 1e6);
            Thread.sleep(PAUSE_MILLIS);
        }
        return new Latencies(millis);
    }

    /**
     * From an insert to the moment a waiting thread has updated the inserted row, each in its own commit, with the
     * same pauses as the trigger samples, in milliseconds.
     */
    private static Latencies plainInsertThenClaim(JdbcTemplate jdbc, int samples) throws Exception {
        String insert =
                "INSERT INTO " + BenchmarkContext.SCHEMA + ".baseline (id, payload) VALUES (?, cast(? AS jsonb))";
        String claim = "UPDATE " + BenchmarkContext.SCHEMA
                + ".baseline SET payload = cast(? AS jsonb) WHERE id = ? RETURNING id";
        ExecutorService claimer = Executors.newSingleThreadExecutor();
        try {
            List<Double> millis = new ArrayList<>();
            for (int i = 0; i < samples; i++) {
                UUID id = UUID.randomUUID();
                long before = System.nanoTime();
                jdbc.update(insert, id, "{\"index\":" + i + "}");
                Future<Long> claimed = claimer.submit(() -> {
                    jdbc.queryForObject(claim, UUID.class, "{\"claimed\":true}", id);
                    return System.nanoTime();
                });
                millis.add((claimed.get(10, TimeUnit.SECONDS) - before) / 1e6);
                Thread.sleep(PAUSE_MILLIS);
            }
            return new Latencies(millis);
        } finally {
            claimer.shutdownNow();
        }
    }

    /** Trigger to start, the trigger call, and trigger return to start, in milliseconds. */
    private static Latencies[] sample(RunlaneEngine engine, int samples) throws Exception {
        List<Double> millis = new ArrayList<>();
        List<Double> calls = new ArrayList<>();
        List<Double> pickUps = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            CompletableFuture<Long> started = new CompletableFuture<>();
            BenchmarkTasks.NoopTask.started = started;
            long before = System.nanoTime();
            engine.template()
                    .trigger(BenchmarkTasks.NOOP, new BenchmarkTasks.NoopTask.Payload(i), TriggerOptions.none());
            long returned = System.nanoTime();
            long at = started.get(10, TimeUnit.SECONDS);
            millis.add((at - before) / 1e6);
            calls.add((returned - before) / 1e6);
            pickUps.add(Math.max(0, at - returned) / 1e6);
            Thread.sleep(PAUSE_MILLIS);
        }
        return new Latencies[] {new Latencies(millis), new Latencies(calls), new Latencies(pickUps)};
    }
}
