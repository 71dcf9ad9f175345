package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Function;

/**
 * Triggers of new runs with idempotency keys against the peers' deduplicated enqueue of a new job (db-scheduler,
 * DBOS Transact, JobRunr), each through its own client API, on the same database, pool and 4 threads; rounds take
 * the systems in turn. A peer that cannot start here is left out, and the results say why.
 */
final class PeerTriggerScenario implements Scenario {

    private static final int THREADS = 4;

    private static final String FIGURE = "trigger, new runs with deduplication keys (runs/s)";

    @Override
    public String name() {
        return "trigger, peers";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        List<PeerEnqueue> peers = new ArrayList<>();
        List<String> unavailable = new ArrayList<>();
        try {
            start(context, "db-scheduler", DbSchedulerEnqueue::new, peers, unavailable);
            start(context, "DBOS Transact", DbosEnqueue::new, peers, unavailable);
            start(context, "JobRunr", JobRunrEnqueue::new, peers, unavailable);
            unavailable.forEach(why -> report.note("Trigger against peers: " + why));
            if (peers.isEmpty()) {
                report.notMeasured(Goal.TRIGGER_VS_PEERS, "not measured: no peer could start here (see the notes)");
                return;
            }
            measure(context, report, peers);
            report.note("Trigger against peers: every system commits one new job per call with the order id as its"
                    + " payload and \"order.\" + order id as its deduplication key, through its own client API;"
                    + " nothing executes the jobs meanwhile. A key deduplicates while the db-scheduler execution"
                    + " exists, while the DBOS workflow is enqueued or running, while the JobRunr job exists, and,"
                    + " for Runlane, while the run is active and for its retention after it finishes.");
        } finally {
            peers.forEach(PeerEnqueue::close);
        }
    }

    private static void measure(BenchmarkContext context, Report report, List<PeerEnqueue> peers) throws Exception {
        RunlaneTemplate runlane = context.engine().template();
        String prefix = "peer-" + UUID.randomUUID() + "-";
        List<Measurement.Operation> operations = new ArrayList<>();
        operations.add((worker, sequence) -> runlane.trigger(
                BenchmarkTasks.ORDER, new BenchmarkTasks.OrderTask.Payload(prefix + sequence), TriggerOptions.none()));
        for (PeerEnqueue peer : peers) {
            operations.add((worker, sequence) -> peer.enqueue(prefix + sequence));
        }
        String insert =
                "INSERT INTO " + BenchmarkContext.SCHEMA + ".baseline (id, payload) VALUES (?, cast(? AS jsonb))";
        operations.add((worker, sequence) ->
                context.jdbc().update(insert, UUID.randomUUID(), "{\"orderId\":\"" + prefix + sequence + "\"}"));
        operations.add(new GroupedJdbcInsert(context.jdbc()));
        List<Rounds> measured = Measurement.compareAll(context.options(), THREADS, operations);
        Rounds runlaneRounds = measured.get(0);
        Rounds insertRounds = measured.get(peers.size() + 1);
        Rounds groupedRounds = measured.get(peers.size() + 2);
        report.compare(FIGURE, THREADS, runlaneRounds, "JDBC single-row insert + commit (same rounds)", insertRounds);
        report.compare(
                FIGURE,
                THREADS,
                runlaneRounds,
                "JDBC insert, the threads' rows grouped into one statement + commit (2 lanes)",
                groupedRounds);
        PeerEnqueue fastest = null;
        Rounds fastestRounds = null;
        for (int i = 0; i < peers.size(); i++) {
            PeerEnqueue peer = peers.get(i);
            Rounds peerRounds = measured.get(i + 1);
            report.compare(FIGURE, THREADS, runlaneRounds, peer.name(), peerRounds);
            context.progress(
                    "trigger, peers: Runlane %s/s, %s %s/s",
                    runlaneRounds.format(0), peer.name(), peerRounds.format(0));
            if (fastestRounds == null || peerRounds.median() > fastestRounds.median()) {
                fastest = peer;
                fastestRounds = peerRounds;
            }
        }
        report.note(String.format(
                Locale.ROOT,
                "Trigger against peers: 1.5 × the fastest peer (%s) is %s runs/s; in the same rounds a plain JDBC"
                        + " single-row insert with its commit made %s/s (%s × the fastest peer), and plain JDBC with"
                        + " the %d threads' rows grouped into shared statements and commits made %s/s (%s ×).",
                fastest.name(),
                ResultsWriter.format(1.5 * fastestRounds.median()),
                ResultsWriter.format(insertRounds.median()),
                ResultsWriter.format(insertRounds.median() / fastestRounds.median()),
                THREADS,
                ResultsWriter.format(groupedRounds.median()),
                ResultsWriter.format(groupedRounds.median() / fastestRounds.median())));
        report.target(
                Goal.TRIGGER_VS_PEERS,
                runlaneRounds.dividedBy(fastestRounds),
                String.format(
                        Locale.ROOT,
                        "%s vs %s runs/s, the fastest peer: %s",
                        ResultsWriter.format(runlaneRounds.median()),
                        ResultsWriter.format(fastestRounds.median()),
                        fastest.name()));
    }

    /** Starts a peer and checks that it enqueues; a peer that fails either is noted with the reason, not measured. */
    private static void start(
            BenchmarkContext context,
            String name,
            Function<BenchmarkContext, PeerEnqueue> factory,
            List<PeerEnqueue> peers,
            List<String> unavailable) {
        PeerEnqueue peer = null;
        try {
            peer = factory.apply(context);
            peer.enqueue("probe-" + UUID.randomUUID());
            peers.add(peer);
        } catch (Exception | LinkageError ex) {
            unavailable.add(name + " could not run here and is left out: " + ex);
            context.progress("trigger, peers: %s could not run: %s", name, ex);
            if (peer != null) {
                try {
                    peer.close();
                } catch (RuntimeException closing) {
                    ex.addSuppressed(closing);
                }
            }
        }
    }
}
