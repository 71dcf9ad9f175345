package io.runlane.faults;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * A failover of the replicated pair under load: the primary is killed ({@code kill -9} of all its processes) or
 * frozen ({@code SIGSTOP}), and after a failure manager's detection time the standby is promoted. The fault then
 * waits until every instance runs handlers again, a run was created since the promotion and the first instance's
 * readiness probe answers up again, for at most {@link #MAX_WAIT}; a frozen primary stays frozen, its connections
 * open and silent, all that time and at least {@link #target} after the promotion, and is killed only then. The
 * failed server is rebuilt as the new primary's synchronous standby before the next failover, so the pair is whole
 * when the fault returns.
 *
 * <p>After the drain, {@link #measure} reports, per failover, how long there was no primary, and how long after the
 * new primary accepted its first write the first handler started again (the first effect that started after it), the
 * last instance started one, and the first trigger succeeded: figures beside their target, not assertions. It also
 * reports what the first instance's health answered meanwhile, asked every 250 ms: the readiness group the guide
 * recommends ({@code readinessState} and {@code runlane}) and the aggregate {@code /actuator/health}.
 */
final class Failover implements Fault {

    /** How the primary fails. */
    enum Mode {
        /** {@code kill -9}: its sockets close, clients hear at once. */
        KILL,
        /** {@code SIGSTOP}: its sockets stay open and nothing answers; only clients' time limits end the wait. */
        HANG
    }

    /** One failover as it happened: when the primary failed, when its successor accepted a write, what probes saw. */
    private record Switch(
            ReplicatedPostgres.Failure failure,
            ReplicatedPostgres.Promotion promotion,
            HealthProbe readiness,
            HealthProbe health) {}

    static final String READINESS = "/actuator/health/readiness";

    static final String HEALTH = "/actuator/health";

    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private static final String EFFECTS_SINCE = """
            SELECT split_part(instance, '.', 1), min(started_at) FROM %s.effects
            WHERE scenario = ? AND started_at > ? GROUP BY 1
            """;

    private static final String RUN_CREATED_SINCE = """
            SELECT EXISTS (SELECT FROM %s.runs
                           WHERE environment = ? AND starts_with(idempotency_key, ?) AND created_at > ?)
            """;

    private final Mode mode;

    private final Duration target;

    private final List<Switch> switches = new CopyOnWriteArrayList<>();

    private volatile int instances;

    private Failover(Mode mode, Duration target) {
        this.mode = mode;
        this.target = target;
    }

    /** The primary killed; handlers and triggers should be back within 5 s of the promotion. */
    static Failover killingPrimary() {
        return new Failover(Mode.KILL, Duration.ofSeconds(5));
    }

    /** The primary frozen; handlers and triggers should be back within 8 s of the promotion. */
    static Failover freezingPrimary() {
        return new Failover(Mode.HANG, Duration.ofSeconds(8));
    }

    @Override
    public void inject(FaultContext context, Random random) throws Exception {
        ReplicatedPostgres pair = context.cluster().pair();
        if (pair == null) {
            throw new IllegalStateException("A failover needs a cluster on a replicated pair");
        }
        instances = context.cluster().nodes().size();
        while (context.loadRunning()) {
            FaultContext.pause(random, 1500, 3000);
            if (!context.loadRunning()) {
                break;
            }
            FaultNode probed = context.cluster().node(0);
            HealthProbe readiness = HealthProbe.start(probed, READINESS);
            HealthProbe health = HealthProbe.start(probed, HEALTH);
            ReplicatedPostgres.Failure failure = mode == Mode.KILL ? pair.killPrimary() : pair.freezePrimary();
            context.note((mode == Mode.KILL ? "kill -9 of the primary " : "SIGSTOP of the primary ") + failure.server()
                    + ", " + failure.processes() + " processes");
            FaultContext.pause(random, 500, 1500);
            ReplicatedPostgres.Promotion promotion = pair.promoteStandby();
            context.note("promoted " + promotion.server() + ": it accepted a write "
                    + millis(promotion.readyNanos() - failure.atNanos()) + " ms after the primary failed");
            try {
                awaitRecovery(context, promotion, readiness, mode == Mode.HANG ? target : Duration.ZERO);
            } finally {
                readiness.close();
                health.close();
                switches.add(new Switch(failure, promotion, readiness, health));
            }
            if (mode == Mode.HANG) {
                pair.discardFailed();
                context.note("killed the frozen server " + millis(System.nanoTime() - promotion.readyNanos())
                        + " ms after the promotion");
            }
            long rebuild = System.nanoTime();
            pair.restore();
            context.note("rebuilt the failed server as the synchronous standby in "
                    + millis(System.nanoTime() - rebuild) + " ms");
        }
    }

    /**
     * Adds the figures to {@code report}, each the slowest failover's, in milliseconds ({@code -1} when what it waits
     * for never happened), the target beside them, and a note per failover; writes the probes' answers to {@code
     * directory} ({@code failover-N-readiness.csv}, {@code failover-N-health.csv}, times after the failure).
     */
    void measure(FaultReport report, Evidence evidence, LoadDriver load, Path directory) throws IOException {
        if (switches.isEmpty()) {
            report.violation("no failover happened within the load window");
            return;
        }
        Figures worst = new Figures();
        for (int i = 0; i < switches.size(); i++) {
            Switch done = switches.get(i);
            done.readiness()
                    .write(
                            directory.resolve("failover-" + (i + 1) + "-readiness.csv"),
                            done.failure().atNanos());
            done.health()
                    .write(
                            directory.resolve("failover-" + (i + 1) + "-health.csv"),
                            done.failure().atNanos());
            Figures figures = figures(done, evidence, load);
            report.note("failover from " + done.failure().server() + " to "
                    + done.promotion().server()
                    + ": no primary for " + figures.noPrimary + " ms; after the new primary's first write, handlers"
                    + " ran again after " + figures.handlers + " ms (on every instance after " + figures.allInstances
                    + " ms) and triggers succeeded again after " + figures.triggers + " ms; target "
                    + target.toMillis() + " ms");
            report.note(READINESS + " of node-1 answered 503 " + figures.readinessDown + " ms after the primary"
                    + " failed and 200 again " + figures.readinessUp + " ms after the new primary's first write; its"
                    + " slowest answer took " + figures.readinessSlowest + " ms, the slowest of " + HEALTH + " "
                    + figures.healthSlowest + " ms");
            if (!within(figures.handlers) || !within(figures.triggers)) {
                report.note("recovery above the target of " + target.toMillis() + " ms (reported, not asserted)");
            }
            worst.add(figures);
        }
        report.figure("failovers", switches.size());
        report.figure("no_primary_ms", worst.noPrimary);
        report.figure("handlers_back_ms", worst.handlers);
        report.figure("all_instances_back_ms", worst.allInstances);
        report.figure("triggers_back_ms", worst.triggers);
        report.figure("target_ms", target.toMillis());
        report.figure("readiness_down_ms", worst.readinessDown);
        report.figure("readiness_up_ms", worst.readinessUp);
        report.figure("readiness_slowest_ms", worst.readinessSlowest);
        report.figure("health_slowest_ms", worst.healthSlowest);
        report.note("tries of triggers without a 2xx answer: " + load.refusals());
    }

    /** One failover's figures, or the worst of several; -1 for what never happened, which is worse than any time. */
    private static final class Figures {

        long noPrimary;

        long handlers;

        long allInstances;

        long triggers;

        long readinessDown;

        long readinessUp;

        long readinessSlowest;

        long healthSlowest;

        void add(Figures other) {
            noPrimary = Math.max(noPrimary, other.noPrimary);
            handlers = worst(handlers, other.handlers);
            allInstances = worst(allInstances, other.allInstances);
            triggers = worst(triggers, other.triggers);
            readinessDown = worst(readinessDown, other.readinessDown);
            readinessUp = worst(readinessUp, other.readinessUp);
            readinessSlowest = Math.max(readinessSlowest, other.readinessSlowest);
            healthSlowest = Math.max(healthSlowest, other.healthSlowest);
        }

        private static long worst(long sofar, long value) {
            return sofar < 0 || value < 0 ? -1 : Math.max(sofar, value);
        }
    }

    private Figures figures(Switch done, Evidence evidence, LoadDriver load) {
        long readyNanos = done.promotion().readyNanos();
        Instant ready = done.promotion().readyAt();
        Map<String, Long> firstByInstance = evidence.effects().stream()
                .filter(effect -> effect.startedAt().isAfter(ready))
                .collect(Collectors.toMap(
                        effect ->
                                effect.instance().substring(0, effect.instance().indexOf('.')),
                        effect -> Duration.between(ready, effect.startedAt()).toMillis(),
                        Math::min));
        Figures figures = new Figures();
        figures.noPrimary = millis(readyNanos - done.failure().atNanos());
        figures.handlers = firstByInstance.values().stream()
                .mapToLong(Long::longValue)
                .min()
                .orElse(-1);
        figures.allInstances = firstByInstance.size() < instances
                ? -1
                : firstByInstance.values().stream()
                        .mapToLong(Long::longValue)
                        .max()
                        .orElse(-1);
        figures.triggers = load.answerTimes().stream()
                .filter(at -> at > readyNanos)
                .mapToLong(at -> millis(at - readyNanos))
                .min()
                .orElse(-1);
        figures.readinessDown = done.readiness().firstMillis(done.failure().atNanos(), 503);
        figures.readinessUp = done.readiness().firstMillis(readyNanos, 200);
        figures.readinessSlowest = done.readiness().slowestMillis();
        figures.healthSlowest = done.health().slowestMillis();
        return figures;
    }

    private boolean within(long millis) {
        return millis >= 0 && millis <= target.toMillis();
    }

    /**
     * Waits until every instance started a handler, a run was created and the readiness probe answered 200 since the
     * promotion, at least {@code minimum} and at most {@link #MAX_WAIT} after it.
     */
    private static void awaitRecovery(
            FaultContext context, ReplicatedPostgres.Promotion promotion, HealthProbe readiness, Duration minimum)
            throws InterruptedException {
        FaultCluster cluster = context.cluster();
        OffsetDateTime since = OffsetDateTime.ofInstant(promotion.readyAt(), ZoneOffset.UTC);
        long earliest = promotion.readyNanos() + minimum.toNanos();
        long latest = promotion.readyNanos() + MAX_WAIT.toNanos();
        while (System.nanoTime() < latest) {
            if (System.nanoTime() >= earliest
                    && readiness.firstMillis(promotion.readyNanos(), 200) >= 0
                    && recovered(context, cluster, since)) {
                return;
            }
            Thread.sleep(200);
        }
        context.note("the cluster had not recovered " + MAX_WAIT.toSeconds() + " s after the promotion");
    }

    private static boolean recovered(FaultContext context, FaultCluster cluster, OffsetDateTime since) {
        try (Connection effects = cluster.connectEffects();
                PreparedStatement started = effects.prepareStatement(EFFECTS_SINCE.formatted(cluster.effectSchema()));
                Connection runlane = cluster.connect();
                PreparedStatement created = runlane.prepareStatement(RUN_CREATED_SINCE.formatted(cluster.schema()))) {
            started.setString(1, context.scenario());
            started.setObject(2, since);
            int instances = 0;
            try (ResultSet rs = started.executeQuery()) {
                while (rs.next()) {
                    instances++;
                }
            }
            created.setString(1, FaultCluster.ENVIRONMENT);
            created.setString(2, context.scenario() + ".");
            created.setObject(3, since);
            try (ResultSet rs = created.executeQuery()) {
                rs.next();
                return instances == cluster.nodes().size() && rs.getBoolean(1);
            }
        } catch (SQLException ex) {
            return false;
        }
    }

    private static long millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }
}
