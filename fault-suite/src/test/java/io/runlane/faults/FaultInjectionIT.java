package io.runlane.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The fault-injection suite: three instances of {@link FaultNodeApplication} in separate JVMs share one PostgreSQL,
 * load is driven through their HTTP trigger endpoint, faults are injected, and after a drain the invariants of
 * {@link InvariantCheck} are checked by SQL against Runlane's tables and the handlers' effect log (for the
 * transactional-step workload also those of {@link TransactionalStepCheck}, for the debounced one those of {@link
 * DebounceCheck} instead of the per-key checks, and for a scenario with a throttled load beside its main one those of
 * {@link ThrottleCheck} on its throttled runs). Each scenario prints one {@code FAULTS ...} line.
 *
 * <p>Runs with {@code mvn -B -ntp verify -Pfaults}. System properties: {@code faults.seconds} (load window per
 * scenario, default 12), {@code faults.rate} (keys per second, default 15), {@code faults.seed} (replays a run's
 * fault times, targets and load), {@code faults.scenarios} (a comma-separated subset). On a broken invariant the
 * effect log and the events of the offending runs are left under {@code target/faults/<scenario>/}.
 *
 * <p>The failover scenarios run on a second cluster of three instances, started the first time one is selected, whose
 * Runlane database is a {@link ReplicatedPostgres} pair under {@code target/faults/failover/}; without the machine's
 * PostgreSQL binaries they are skipped with a printed line.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultInjectionIT {

    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(3);

    private final long seed = Long.getLong("faults.seed", System.currentTimeMillis() % 1_000_000);

    private final Duration window = Duration.ofSeconds(Long.getLong("faults.seconds", 12));

    private final int rate = Integer.getInteger("faults.rate", 15);

    private final Path directory = Path.of(System.getProperty("faults.directory", "target/faults"));

    private final List<String> lines = new ArrayList<>();

    private FaultDatabase database;

    private FaultCluster cluster;

    private String suiteId;

    private @Nullable ReplicatedPostgres pair;

    private @Nullable FaultCluster failoverCluster;

    private boolean skewed;

    private int started;

    private int passed;

    private final AtomicBoolean stopped = new AtomicBoolean();

    @BeforeAll
    void startCluster() throws Exception {
        FaultDatabase.deleteRecursively(directory);
        Files.createDirectories(directory);
        String jdbcUrl = System.getenv("RUNLANE_TEST_JDBC_URL");
        database = FaultDatabase.open(jdbcUrl, directory.resolve("pg").toAbsolutePath());
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopCluster));
        suiteId = seed + "_" + (System.currentTimeMillis() % 100_000);
        cluster = new FaultCluster(database, suiteId, 3, directory);
        System.out.println("FAULTS seed=" + seed + " (replay with -Dfaults.seed=" + seed + ") seconds="
                + window.toSeconds() + " rate=" + rate + " database=" + database.describe() + " schema="
                + cluster.schema());
        long start = System.nanoTime();
        cluster.startAll();
        System.out.println("FAULTS-EVENT cluster of 3 instances ready in "
                + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
    }

    @AfterAll
    void stopCluster() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        if (failoverCluster != null) {
            failoverCluster.close();
            if (database != null && !database.restartable() && passed == started) {
                failoverCluster.dropSchemas();
            }
        }
        if (pair != null) {
            pair.close();
        }
        if (cluster != null) {
            cluster.close();
            if (database != null && !database.restartable() && passed == started) {
                cluster.dropSchemas();
            }
        }
        if (database != null) {
            try {
                database.close();
            } catch (IOException ex) {
                System.err.println("Stopping PostgreSQL failed: " + ex);
            }
        }
        lines.forEach(System.out::println);
        try {
            Files.write(directory.resolve("FAULTS.txt"), lines);
        } catch (IOException ex) {
            System.err.println("Writing FAULTS.txt failed: " + ex);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyFaultClassKeepsNoDuplicateNoLossNoOverlap() {
        Set<String> selected = new HashSet<>(
                Arrays.asList(System.getProperty("faults.scenarios", "").split(",")));
        selected.remove("");
        return FaultScenario.all().stream()
                .filter(scenario -> selected.isEmpty() || selected.contains(scenario.name()))
                .map(scenario -> DynamicTest.dynamicTest(scenario.name(), () -> run(scenario)));
    }

    private void run(FaultScenario scenario) throws Exception {
        if (scenario.needsSkew()
                && !skewed
                && !skewInstance(scenario)
                && scenario.faults().isEmpty()) {
            Assumptions.abort("libfaketime is not installed: the clock-skew scenario is skipped");
        }
        FaultCluster cluster = clusterFor(scenario);
        started++;
        Path scenarioDirectory = directory.resolve(scenario.name());
        Files.createDirectories(scenarioDirectory);
        cluster.restore();
        cluster.mark("scenario " + scenario.name() + " seed " + seed);
        long scenarioSeed = seed * 31 + scenario.name().hashCode();
        int keys = scenario.workload().keys(rate, window);
        TriggerLoad load = scenario.workload() == Workload.DEBOUNCED
                ? new DebounceLoad(cluster.nodes(), scenario.name(), new Random(scenarioSeed), keys, window)
                : new LoadDriver(
                        cluster.nodes(), scenario.name(), scenario.workload(), new Random(scenarioSeed), keys, window);
        FaultContext context = new FaultContext(cluster, scenario.name(), System.nanoTime() + window.toNanos());
        ExecutorService injectors = Executors.newCachedThreadPool();
        List<Future<?>> running = new ArrayList<>();
        List<Fault> faults = scenario.faults();
        for (int i = 0; i < faults.size(); i++) {
            Fault fault = faults.get(i);
            Random random = new Random(scenarioSeed + 1000L * (i + 1));
            running.add(injectors.submit(() -> {
                fault.inject(context, random);
                return null;
            }));
        }
        ThrottleLoad throttleLoad = scenario.throttled()
                ? new ThrottleLoad(cluster.nodes(), scenario.name(), new Random(scenarioSeed + 7), window)
                : null;
        if (throttleLoad != null) {
            running.add(injectors.submit(() -> {
                throttleLoad.run(Duration.ofMinutes(1));
                return null;
            }));
        }
        load.run(Duration.ofMinutes(1));
        try {
            for (Future<?> injector : running) {
                injector.get(5, TimeUnit.MINUTES);
            }
        } finally {
            injectors.shutdownNow();
            cluster.restore();
        }
        long drainStart = System.nanoTime();
        drain(cluster, scenario, scenario.workload().runs());
        if (throttleLoad != null) {
            drain(cluster, scenario, Evidence.Selection.THROTTLED);
        }
        long drainMillis = Duration.ofNanos(System.nanoTime() - drainStart).toMillis();

        Evidence evidence =
                Evidence.load(cluster, scenario.name(), scenario.workload().runs());
        FaultReport report = new FaultReport(scenario.name(), seed);
        if (load instanceof DebounceLoad bursts) {
            // A key has one run per debounce window: DebounceCheck checks keys and triggers, InvariantCheck the rest.
            new InvariantCheck(evidence, Map.of(), Set.of(), context.killed(), context.stopped())
                    .check(report, scenario.name());
            new DebounceCheck(
                            evidence, DebounceCheck.loadPayloads(cluster, scenario.name()), bursts, DebounceTask.PERIOD)
                    .check(report, scenario.name());
        } else if (load instanceof LoadDriver driver) {
            Set<String> allKeys = new HashSet<>();
            for (int k = 0; k < driver.keys(); k++) {
                allKeys.add("k" + k);
            }
            new InvariantCheck(evidence, driver.acks(), allKeys, context.killed(), context.stopped())
                    .check(report, scenario.name());
        }
        if (scenario.workload() == Workload.TRANSACTIONAL_STEPS) {
            new TransactionalStepCheck(
                            evidence,
                            TransactionalStepCheck.StepEvidence.load(cluster, scenario.name(), evidence),
                            context.killed())
                    .check(report);
        }
        Evidence throttled = null;
        if (throttleLoad != null) {
            throttled = Evidence.load(cluster, scenario.name(), Evidence.Selection.THROTTLED);
            new ThrottleCheck(
                            throttled,
                            throttleLoad.answers(),
                            ThrottleTask.LIMIT,
                            ThrottleTask.PERIOD,
                            skewedWorker(cluster))
                    .check(report, scenario.name());
        }
        report.unanswered = load.unanswered() + (throttleLoad == null ? 0 : throttleLoad.unanswered());
        List<String> unfounded = LeaseLossWarnings.unfounded(cluster.directory(), scenario.name(), evidence);
        report.unfoundedLeaseLossWarnings = unfounded.size();
        unfounded.forEach(warning -> report.note("lease-loss warning without a lease expiry: " + warning));
        for (Fault fault : faults) {
            if (fault instanceof Failover failover && load instanceof LoadDriver driver) {
                failover.measure(report, evidence, driver, scenarioDirectory);
            }
        }
        checkExpectations(scenario, context, evidence, report);
        context.notes().forEach(report::note);
        System.out.println("FAULTS-EVENT scenario=" + scenario.name() + " triggers answered=" + load.answered()
                + " retried=" + load.retries() + " drain=" + drainMillis + " ms; re-executions by reason: "
                + report.reasonSummary());
        report.note("re-executions by reason: " + report.reasonSummary());
        write(scenarioDirectory, evidence, report);
        if (throttled != null) {
            throttled.dump(scenarioDirectory.resolve("throttled"), Set.of());
        }
        lines.add(report.line());
        passed += report.passed() ? 1 : 0;
        System.out.println(report.line());
        assertThat(report.violations())
                .as("%s: broken invariants (evidence under %s)", report.line(), scenarioDirectory)
                .isEmpty();
    }

    /**
     * The scenario-specific promises: a watched zombie was refused; no handler started on a claim whose answer came
     * after its lease expired; no re-execution where no attempt was cut.
     */
    private static void checkExpectations(
            FaultScenario scenario, FaultContext context, Evidence evidence, FaultReport report) throws Exception {
        Map<UUID, List<Evidence.EffectRow>> effects = evidence.effectsByRun();
        if (scenario.reexecution() != FaultScenario.Reexecution.CUT_ATTEMPTS) {
            effects.forEach((runId, runEffects) -> {
                boolean rerun = runEffects.stream()
                                .map(Evidence.EffectRow::attempt)
                                .distinct()
                                .count()
                        > 1;
                if (rerun
                        && (scenario.reexecution() == FaultScenario.Reexecution.NONE
                                || !context.lockedRuns().contains(runId))) {
                    report.violation(
                            runId,
                            "executed more than once although "
                                    + (scenario.reexecution() == FaultScenario.Reexecution.NONE
                                            ? "no fault of this scenario cuts an attempt"
                                            : "its row was never locked: it lost its lease because another run's row was")
                                    + "; effects " + runEffects);
                }
            });
        }
        if (scenario.required() == FaultScenario.Required.PARTITION_ZOMBIE
                && context.watched().isEmpty()) {
            report.violation("no partition caught a long attempt in flight and saw it recovered elsewhere, so the"
                    + " refusal of a zombie's completion (S-EX-3) was not exercised");
        }
        if (scenario.required() == FaultScenario.Required.LATE_CLAIM_ANSWER
                && context.lateClaims().isEmpty()) {
            report.violation("no claim's answer was held until a later attempt of one of its runs ran elsewhere, so"
                    + " a late claim answer (S-EX-30) was not exercised");
        }
        context.violations().forEach(report::violation);
        if (scenario.required() == FaultScenario.Required.BULK_RESUME_KILL) {
            checkBulkResume(context, evidence, report);
        }
        if (scenario.required() == FaultScenario.Required.KILL_AFTER_START) {
            checkKillsAfterStart(context, report);
        }
        for (FaultContext.LateClaim late : context.lateClaims()) {
            List<Evidence.EffectRow> started = effects.getOrDefault(late.runId(), List.of()).stream()
                    .filter(effect -> effect.attempt() == late.attempt())
                    .toList();
            if (started.isEmpty()) {
                report.note("run " + late.runId() + " attempt " + late.attempt() + " on " + late.instance()
                        + ": the claim's answer arrived after its lease expired, while attempt " + late.laterAttempt()
                        + " ran on " + late.laterInstance() + "; its handler never started (S-EX-30)");
            } else {
                report.violation(
                        late.runId(),
                        "the handler of attempt " + late.attempt() + " started on "
                                + started.get(0).instance()
                                + " from a claim whose answer arrived after its lease expired, while attempt "
                                + late.laterAttempt() + " ran on " + late.laterInstance() + " (S-EX-30)");
            }
        }
        for (FaultContext.Watched zombie : context.watched()) {
            boolean laterAttemptSucceeded = evidence.runs().stream()
                    .anyMatch(run -> run.id().equals(zombie.runId())
                            && run.status().equals("SUCCEEDED")
                            && run.attempts() > zombie.attempt());
            boolean handlerFinished = effects.getOrDefault(zombie.runId(), List.of()).stream()
                    .anyMatch(e -> e.attempt() == zombie.attempt() && e.endedAt() != null);
            if (!laterAttemptSucceeded || !handlerFinished) {
                report.violation(
                        zombie.runId(),
                        "partition zombie attempt " + zombie.attempt() + " on " + zombie.instance()
                                + ": expected its handler to finish and a later attempt to succeed");
            } else {
                report.note("zombie run " + zombie.runId() + " attempt " + zombie.attempt() + " on "
                        + zombie.instance() + " finished after its lease expired; its completion was refused and a"
                        + " later attempt succeeded (S-EX-3)");
            }
        }
    }

    /**
     * S-RV-4 after a {@code kill -9} in the middle of a bulk resume and a second one elsewhere: the kill hit the bulk
     * resume midway (some runs resumed, some not yet), and after the drain every run was resumed exactly once.
     */
    private static void checkBulkResume(FaultContext context, Evidence evidence, FaultReport report) {
        int runs = evidence.runs().size();
        int atKill = context.resumedAtKill();
        if (atKill <= 0 || atKill >= runs) {
            report.violation("the kill did not hit the bulk resume midway: " + atKill + " of " + runs
                    + " runs were resumed when it came, so a bulk resume cut by kill -9 was not exercised");
        } else {
            report.note(atKill + " of " + runs + " runs were resumed when the bulk resume's instance was killed");
        }
        Map<UUID, List<Evidence.EventRow>> events = evidence.eventsByRun();
        for (Evidence.RunRow run : evidence.runs()) {
            long resumed = events.getOrDefault(run.id(), List.of()).stream()
                    .filter(event -> event.type().equals("RESUMED"))
                    .count();
            if (resumed != 1) {
                report.violation(run.id(), "has " + resumed + " RESUMED events after the two bulk resumes, not one");
            }
        }
    }

    /**
     * S-EX-36, S-EX-7 after {@code kill -9} right after triggers' commits: each run such a trigger created exists (its
     * commit was not lost), ends {@code SUCCEEDED}, and its handler completed exactly once; at least one of them was
     * stored claimed by the killed instance (its {@code CLAIMED} event at its creation time), or the one-commit start
     * was not exercised. A handler that started on the killed instance before it died is a cut attempt, noted.
     */
    private static void checkKillsAfterStart(FaultContext context, FaultReport report) throws Exception {
        List<FaultContext.Halted> halted = context.halted();
        if (halted.isEmpty()) {
            report.violation("no instance ended right after a trigger created its run, so kill -9 after a one-commit"
                    + " start (S-EX-36) was not exercised");
            return;
        }
        String scenario = FaultContext.haltedScenario(context.scenario());
        Evidence evidence;
        try {
            evidence = await().atMost(DRAIN_TIMEOUT)
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> Evidence.load(context.cluster(), scenario),
                            loaded -> loaded.runs().size() >= halted.size()
                                    && loaded.runs().stream().allMatch(Evidence.RunRow::terminal));
        } catch (ConditionTimeoutException ex) {
            evidence = Evidence.load(context.cluster(), scenario);
        }
        Map<UUID, List<Evidence.EffectRow>> effects = evidence.effectsByRun();
        Map<UUID, List<Evidence.EventRow>> events = evidence.eventsByRun();
        int startedOnTrigger = 0;
        for (FaultContext.Halted kill : halted) {
            String key = scenario + "." + kill.key();
            Optional<Evidence.RunRow> found = evidence.runs().stream()
                    .filter(run -> run.key().equals(key))
                    .findFirst();
            if (found.isEmpty()) {
                report.violation("the run of " + key + ", whose trigger returned CREATED on " + kill.instance()
                        + " right before it was killed, is lost");
                continue;
            }
            Evidence.RunRow run = found.get();
            List<Evidence.EventRow> claims = events.getOrDefault(run.id(), List.of()).stream()
                    .filter(event -> event.type().equals("CLAIMED"))
                    .toList();
            boolean started = !claims.isEmpty() && claims.get(0).at().equals(run.createdAt());
            startedOnTrigger += started ? 1 : 0;
            List<Evidence.EffectRow> runEffects = effects.getOrDefault(run.id(), List.of());
            long completed =
                    runEffects.stream().filter(e -> e.endedAt() != null).count();
            if (!run.status().equals("SUCCEEDED") || completed != 1) {
                report.violation(
                        run.id(),
                        "triggered right before " + kill.instance() + " was killed: expected SUCCEEDED with one"
                                + " completed handler, found " + run.status() + " with effects " + runEffects);
            }
            boolean cut = runEffects.stream().anyMatch(e -> e.instance().equals(kill.instance()));
            report.note("run " + run.id() + " (" + key + ")" + (started ? " started on its trigger's commit" : "")
                    + " on " + kill.instance() + ", killed right after;"
                    + (cut ? " its handler had started there (a cut attempt);" : " its handler never started there;")
                    + " attempts " + run.attempts() + ", " + run.status());
        }
        if (startedOnTrigger == 0) {
            report.violation("none of the " + halted.size() + " runs triggered right before a kill was stored claimed"
                    + " by its instance, so kill -9 after a one-commit start (S-EX-36) was not exercised");
        }
    }

    /** The worker id of the cluster's instance whose clock is off, or {@code null} when none is. */
    private static @Nullable String skewedWorker(FaultCluster cluster) throws InterruptedException {
        for (FaultNode node : cluster.nodes()) {
            if (node.skew() != null) {
                String answer = node.call("GET", "/faults/late-claim");
                if (answer == null) {
                    throw new IllegalStateException(node.instance() + " did not tell its worker id");
                }
                return answer.trim().split(" ")[1];
            }
        }
        return null;
    }

    /** Restarts the last instance with its clock off; false (and a printed line) when libfaketime is missing. */
    private boolean skewInstance(FaultScenario scenario) throws Exception {
        Random random = new Random(seed);
        Duration offset = Duration.ofMinutes((random.nextBoolean() ? 1 : -1) * (3 + random.nextInt(7)));
        var skew = ClockSkew.of(offset);
        if (skew.isEmpty()) {
            String line = "FAULTS scenario=" + scenario.name() + " skipped_clock_skew=libfaketime-not-installed"
                    + " (install the Debian package faketime)";
            lines.add(line);
            System.out.println(line);
            return false;
        }
        FaultNode node = cluster.node(2);
        node.terminate(Duration.ofSeconds(30));
        cluster.restart(node, skew.get());
        skewed = true;
        System.out.println("FAULTS-EVENT " + node.instance() + " runs with its clock " + skew.get());
        return true;
    }

    /**
     * The cluster a scenario runs on: the shared one, or for a failover scenario the one on the replicated pair,
     * started the first time. Its first instance starts alone and creates Runlane's schema, so that the others do not
     * wait for that migration with the short socket time-out of the failover URL. Aborts the scenario, with a printed
     * line, when the pair cannot run here.
     */
    private FaultCluster clusterFor(FaultScenario scenario) throws Exception {
        if (!scenario.failover()) {
            return cluster;
        }
        if (failoverCluster == null) {
            Optional<String> unavailable = ReplicatedPostgres.unavailable();
            if (unavailable.isPresent()) {
                String line = "FAULTS scenario=" + scenario.name() + " skipped_failover=" + unavailable.get();
                lines.add(line);
                System.out.println(line);
                Assumptions.abort(line);
            }
            long start = System.nanoTime();
            Path failoverDirectory = directory.resolve("failover");
            pair = ReplicatedPostgres.start(failoverDirectory.resolve("pg"));
            failoverCluster = FaultCluster.onPair(pair, database, suiteId, 3, failoverDirectory);
            failoverCluster.restart(failoverCluster.node(0), null);
            failoverCluster.startAll();
            System.out.println("FAULTS-EVENT failover cluster of 3 instances on " + pair.describe() + " ready in "
                    + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms; instances' URL "
                    + pair.jdbcUrl("…"));
        }
        return failoverCluster;
    }

    /** Waits, bounded, until every run of {@code runs} is terminal; what is not by then is reported as stuck. */
    private void drain(FaultCluster cluster, FaultScenario scenario, Evidence.Selection runs) {
        try {
            await().atMost(DRAIN_TIMEOUT)
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .until(() -> Evidence.unfinished(cluster, scenario.name(), runs) == 0);
        } catch (ConditionTimeoutException ex) {
            System.out.println("FAULTS-EVENT scenario=" + scenario.name() + " drain timed out after " + DRAIN_TIMEOUT);
        }
    }

    private static void write(Path directory, Evidence evidence, FaultReport report) throws IOException {
        List<String> summary = new ArrayList<>();
        summary.add(report.line());
        report.notes().forEach(note -> summary.add("note: " + note));
        report.violations().forEach(violation -> summary.add("VIOLATION " + violation));
        Files.write(directory.resolve("summary.txt"), summary);
        Files.write(directory.resolve("reexecutions.txt"), report.explanations());
        evidence.dump(directory.resolve("all"), Set.of());
        if (!report.passed()) {
            evidence.dump(directory, report.offendingRuns());
        }
    }
}
