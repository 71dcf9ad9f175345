package io.runlane.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The fault classes. Each injector loops while the load window is open, drawing its pauses, targets and durations
 * from its seeded random source, and leaves the cluster whole when it returns (processes restarted, links healed).
 */
final class Faults {

    /** The planned work of the runs whose claims {@link #lateClaimAnswers} holds: the workload's long runs. */
    private static final long LONG_WORK_MILLIS = 2500;

    private Faults() {}

    /** 1: {@code kill -9} of an instance with attempts in flight, then a restart. */
    static Fault kill(List<Integer> targets) {
        return killing((context, random) -> context.cluster().node(targets.get(random.nextInt(targets.size()))));
    }

    /**
     * 1b: {@code kill -9} of the instance with the most transactional steps that wrote their row and whose attempt is
     * still running (S-ST-8), so the kill cuts steps before their commit; any instance when none has one.
     */
    static Fault killInSteps() {
        return killing((context, random) -> {
            FaultNode busiest = nodeWithOpenSteps(context);
            return busiest != null
                    ? busiest
                    : context.cluster()
                            .node(random.nextInt(context.cluster().nodes().size()));
        });
    }

    /** The planned work of a run whose trigger's instance ends right after the commit: short, so it drains fast. */
    private static final long HALTED_WORK_MILLIS = 200;

    /**
     * 1c: {@code kill -9} right after a trigger's commit. The instance triggers a run of a key of its own and ends at
     * once when the trigger created it ({@code /faults/trigger-and-halt}); with a free slot that commit stored the run
     * claimed by the instance's worker (S-EX-36), so it dies holding the run's lease before the handler started, or
     * just after. The scenario's check (see {@code FaultInjectionIT}) finds every such run succeeded once elsewhere.
     */
    static Fault killRightAfterTrigger(List<Integer> targets) {
        return (context, random) -> {
            int sequence = 0;
            while (context.loadRunning()) {
                FaultContext.pause(random, 1000, 3000);
                if (!context.loadRunning()) {
                    break;
                }
                FaultNode node = context.cluster().node(targets.get(random.nextInt(targets.size())));
                String instance = node.instance();
                String key = "h" + sequence++;
                context.killed().add(instance);
                node.call(
                        "POST",
                        "/faults/trigger-and-halt?scenario=" + FaultContext.haltedScenario(context.scenario()) + "&key="
                                + key + "&workMillis=" + HALTED_WORK_MILLIS);
                Integer exit = node.awaitExit(Duration.ofSeconds(10));
                if (exit != null && exit == FaultNodeController.HALTED) {
                    context.halted().add(new FaultContext.Halted(instance, key));
                    context.note("kill -9 of " + instance + " right after its trigger of " + key + " committed");
                } else {
                    node.kill();
                    context.note("kill -9 of " + instance + ": its trigger of " + key + " created nothing");
                }
                FaultContext.pause(random, 300, 1500);
                context.cluster().restart(node, node.skew());
                context.note("restarted as " + node.instance());
            }
        };
    }

    /** Chooses the instance a kill hits. */
    @FunctionalInterface
    private interface Target {
        FaultNode choose(FaultContext context, Random random) throws InterruptedException;
    }

    private static Fault killing(Target target) {
        return (context, random) -> {
            while (context.loadRunning()) {
                FaultContext.pause(random, 1500, 4000);
                if (!context.loadRunning()) {
                    break;
                }
                FaultNode node = target.choose(context, random);
                String instance = node.instance();
                context.killed().add(instance);
                node.kill();
                context.note("kill -9 " + instance);
                FaultContext.pause(random, 300, 2000);
                context.cluster().restart(node, node.skew());
                context.note("restarted as " + node.instance());
            }
        };
    }

    /** 2: {@code SIGTERM} during load: a graceful shutdown (S-EX-8), then a restart. */
    static Fault terminate(List<Integer> targets) {
        return (context, random) -> {
            while (context.loadRunning()) {
                FaultContext.pause(random, 1500, 4000);
                if (!context.loadRunning()) {
                    break;
                }
                FaultNode node = context.cluster().node(targets.get(random.nextInt(targets.size())));
                String instance = node.instance();
                context.stopped().add(instance);
                long start = System.nanoTime();
                boolean graceful = node.terminate(Duration.ofSeconds(30));
                if (!graceful) {
                    context.killed().add(instance);
                }
                context.note(
                        "SIGTERM " + instance + (graceful ? " stopped" : " did not stop and was killed") + " after "
                                + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
                context.cluster().restart(node, node.skew());
                context.note("restarted as " + node.instance());
            }
        };
    }

    /** 3: PostgreSQL stopped and started on the same data directory and port. */
    static Fault restartDatabase() {
        return (context, random) -> {
            FaultDatabase database = context.cluster().database();
            if (!database.restartable()) {
                context.note("PostgreSQL restart skipped: " + database.describe());
                return;
            }
            while (context.loadRunning()) {
                FaultContext.pause(random, 2000, 5000);
                if (!context.loadRunning()) {
                    break;
                }
                long downtime = 1000 + random.nextInt(3000);
                long start = System.nanoTime();
                database.restart(Duration.ofMillis(downtime));
                context.note("PostgreSQL restarted, down for "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
            }
        };
    }

    /** 4: {@code pg_terminate_backend} of every Runlane connection of every instance, repeatedly. */
    static Fault terminateBackends() {
        return (context, random) -> {
            int rounds = 0;
            int terminated = 0;
            while (context.loadRunning()) {
                FaultContext.pause(random, 500, 2500);
                if (!context.loadRunning()) {
                    break;
                }
                try (Connection connection = context.cluster().connect();
                        PreparedStatement statement = connection.prepareStatement("""
                                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                                WHERE application_name LIKE ? AND pid <> pg_backend_pid()""")) {
                    statement.setString(1, context.cluster().runlaneApplicationPattern());
                    try (ResultSet rs = statement.executeQuery()) {
                        rs.next();
                        terminated += rs.getInt(1);
                        rounds++;
                    }
                } catch (SQLException ex) {
                    context.note("pg_terminate_backend round failed: " + ex.getMessage());
                }
            }
            context.note("pg_terminate_backend: " + terminated + " connections in " + rounds + " rounds");
        };
    }

    /**
     * 5: a network partition of one instance from the database while its handlers keep running. The injector waits
     * for a long attempt in flight on the instance, cuts its link, and heals it only once another instance has
     * recovered that run (its {@code LEASE_EXPIRED} event) and the handler has finished: the zombie's completion then
     * arrives after the recovery and must be refused (S-EX-3).
     */
    static Fault partition(List<Integer> targets) {
        return (context, random) -> {
            while (context.loadRunning()) {
                FaultContext.pause(random, 1000, 3000);
                if (!context.loadRunning()) {
                    break;
                }
                FaultContext.Watched watched = awaitLongAttempt(context, targets);
                FaultNode node = watched != null
                        ? context.cluster().nodeRunning(watched.instance())
                        : context.cluster().node(targets.get(random.nextInt(targets.size())));
                long start = System.nanoTime();
                node.proxy().cut();
                context.note("partitioned " + node.instance() + " from PostgreSQL"
                        + (watched == null
                                ? " (no long attempt in flight)"
                                : " with run " + watched.runId() + " attempt " + watched.attempt() + " in flight"));
                try {
                    if (watched != null) {
                        boolean recovered = awaitZombie(context, watched);
                        if (recovered) {
                            context.watched().add(watched);
                        }
                        context.note("run " + watched.runId()
                                + (recovered
                                        ? " recovered by another instance while its handler finished on the partitioned one"
                                        : " was not recovered within the wait"));
                    } else {
                        Thread.sleep(FaultCluster.LEASE.toMillis() * 2);
                    }
                    FaultContext.pause(random, 0, 1500);
                } finally {
                    node.proxy().heal();
                }
                context.note("healed " + node.instance() + " after "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
            }
        };
    }

    /**
     * 5b: the answer of a claim reaches its instance late, as when a partition heals after the claim reached the
     * database (the fault suite's seed 234642 of scenario {@code combined}). The injector arms every target to hold
     * the answer of its next claim that claims a long run ({@link LateClaimAnswers}), and disarms the others as soon as
     * one holds one: which instance claims the next long run is up to the race of their polls, so waiting on one fixed
     * instance could wait out the whole load window (seed 915228). The claim commits, its leases run out, another
     * instance recovers the long run and runs its next attempt, and while that attempt runs the held answer is
     * delivered. The instance must hand the claimed runs back instead of starting their handlers (S-EX-30): a handler
     * started then would run at the same time as the later attempt.
     */
    static Fault lateClaimAnswers(List<Integer> targets) {
        return (context, random) -> {
            Duration longest = FaultCluster.LEASE.multipliedBy(4);
            while (context.loadRunning()) {
                FaultContext.pause(random, 500, 1500);
                if (!context.loadRunning()) {
                    break;
                }
                List<FaultNode> armed = new ArrayList<>();
                for (int target : targets) {
                    FaultNode node = context.cluster().node(target);
                    if (node.call(
                                    "POST",
                                    "/faults/late-claim?longestMillis=" + longest.toMillis() + "&minWorkMillis="
                                            + LONG_WORK_MILLIS)
                            != null) {
                        armed.add(node);
                    } else {
                        context.note("could not arm " + node.instance() + " to hold a claim answer");
                    }
                }
                if (armed.isEmpty()) {
                    continue;
                }
                // Long runs are triggered until the load window closes; one triggered last is claimed soon after.
                Duration wait = context.untilLoadEnds().plus(FaultCluster.LEASE);
                long start = System.nanoTime();
                Held held = null;
                try {
                    held = awaitHeldClaim(armed, wait);
                    if (held == null) {
                        context.note("no claim of " + instances(armed) + " claimed a long run within " + wait.toMillis()
                                + " ms");
                        continue;
                    }
                    context.note("holding the answer of a claim of "
                            + held.node().instance() + " that claimed a long run; disarmed the other instances");
                    FaultContext.LateClaim late =
                            awaitLaterAttempt(context, held.node().instance(), held.worker(), longest);
                    if (late == null) {
                        context.note(
                                "no run of the held claim of " + held.node().instance()
                                        + " was recovered and running elsewhere within " + longest.toMillis() + " ms");
                    } else {
                        context.lateClaims().add(late);
                        context.note("run " + late.runId() + " attempt " + late.attempt() + " claimed by "
                                + late.instance() + " lost its lease before the claim's answer arrived; attempt "
                                + late.laterAttempt() + " runs on " + late.laterInstance());
                    }
                } finally {
                    for (FaultNode node : armed) {
                        node.call("POST", "/faults/late-claim/release");
                    }
                }
                context.note("delivered the held claim answer to " + held.node().instance() + " after "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
            }
        };
    }

    /** An instance holding a claim's answer, and the worker id whose claim it is. */
    private record Held(FaultNode node, String worker) {}

    /**
     * The first of the {@code armed} instances that holds a claim's answer, the others disarmed at once so that only
     * one claim is held; {@code null} if none holds one within the time. Disarming delivers at once the answer of an
     * instance that caught a claim meanwhile, held only for one round of asking.
     */
    private static @Nullable Held awaitHeldClaim(List<FaultNode> armed, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (FaultNode node : armed) {
                String state = node.call("GET", "/faults/late-claim");
                if (state != null && state.startsWith("holding ")) {
                    for (FaultNode other : armed) {
                        if (other != node) {
                            other.call("POST", "/faults/late-claim/release");
                        }
                    }
                    return new Held(node, state.substring("holding ".length()).trim());
                }
            }
            Thread.sleep(20);
        }
        return null;
    }

    private static String instances(List<FaultNode> nodes) {
        return nodes.stream().map(FaultNode::instance).collect(Collectors.joining(", "));
    }

    /**
     * A long run claimed by {@code worker} whose handler never started (no effect of that attempt), whose lease
     * expired, and whose later attempt is running now on another instance; waits up to {@code timeout} for one.
     */
    private static FaultContext.LateClaim awaitLaterAttempt(
            FaultContext context, String instance, String worker, Duration timeout) throws InterruptedException {
        String sql = """
                SELECT c.run_id, c.attempt, f.attempt, f.instance FROM (
                    SELECT e.run_id, substring(e.detail from '^attempt ([0-9]+)')::int AS attempt
                    FROM %1$s.run_events e WHERE e.type = 'CLAIMED' AND e.actor = ?) c
                JOIN %2$s.effects f ON f.run_id = c.run_id AND f.attempt > c.attempt AND f.ended_at IS NULL
                                     AND f.planned_ms >= ?
                WHERE NOT EXISTS (SELECT FROM %2$s.effects o WHERE o.run_id = c.run_id AND o.attempt = c.attempt)
                  AND EXISTS (SELECT FROM %1$s.run_events x WHERE x.run_id = c.run_id AND x.type = 'LEASE_EXPIRED'
                                AND x.detail LIKE 'attempt ' || c.attempt || ' %%')
                LIMIT 1""".formatted(context.cluster().schema(), context.cluster().effectSchema());
        return poll(context, timeout, Duration.ofMillis(20), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setString(1, worker);
                statement.setLong(2, LONG_WORK_MILLIS);
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next()
                            ? new FaultContext.LateClaim(
                                    rs.getObject(1, UUID.class), rs.getInt(2), instance, rs.getInt(3), rs.getString(4))
                            : null;
                }
            }
        });
    }

    /**
     * 1c: {@code kill -9} of an instance in the middle of a bulk resume (S-RV-4). Once the load window closed and
     * every run of the scenario failed its first life ({@link Workload#FAILING_FIRST_LIFE}), the instance {@code
     * bulkTarget} resumes them all in one {@code resumeAll} call, selected by task, status, creation time and failure
     * code, and is killed once 30 are resumed. Right after the kill every run must be either untouched (still
     * {@code FAILED} with its failure, no {@code RESUMED} event) or resumed once with its key taken again: one
     * transaction per run, never half of one. Then {@code finishTarget} resumes the rest, calling until nothing
     * matches, and the killed instance restarts.
     */
    static Fault killDuringBulkResume(int bulkTarget, int finishTarget) {
        return (context, random) -> {
            long createdFromMillis = System.currentTimeMillis() - 1000;
            while (context.loadRunning()) {
                Thread.sleep(200);
            }
            Thread.sleep(KEY_TRIGGER_SPREAD_MILLIS + FaultNodeController.FIRST_LIFE_DELAY.toMillis());
            Integer total = awaitAllFailed(context);
            if (total == null) {
                context.violation("the runs of the scenario did not all fail their first life within two minutes");
                return;
            }
            FaultNode bulk = context.cluster().node(bulkTarget);
            String query = "/faults/resume-all?failureCode=" + EffectTask.FIRST_LIFE_FAILURE + "&createdFromMillis="
                    + createdFromMillis;
            Thread caller = new Thread(
                    () -> {
                        try {
                            bulk.call("POST", query);
                        } catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "bulk-resume-" + bulk.instance());
            String instance = bulk.instance();
            caller.start();
            Integer seen = poll(context, Duration.ofSeconds(30), Duration.ofMillis(1), connection -> {
                int resumed = resumedRuns(context, connection);
                return resumed >= 30 ? resumed : null;
            });
            context.killed().add(instance);
            bulk.kill();
            caller.join(Duration.ofSeconds(10).toMillis());
            int atKill = -1;
            try (Connection connection = context.cluster().connect()) {
                atKill = resumedRuns(context, connection);
                checkNoHalfResume(context, connection);
            } catch (SQLException ex) {
                context.violation("could not read the runs after the kill: " + ex.getMessage());
            }
            context.resumedAtKill(atKill);
            context.note("kill -9 " + instance + " during its resumeAll: " + atKill + " of " + total
                    + " runs resumed at the kill (" + (seen == null ? "none seen" : seen + " seen before it") + ")");
            FaultNode finisher = context.cluster().node(finishTarget);
            for (int call = 1; call <= 10; call++) {
                String answer = finisher.call("POST", query);
                context.note("resumeAll on " + finisher.instance() + " answered matched/acted/skipped: " + answer);
                if (answer != null && answer.startsWith("0 ")) {
                    break;
                }
            }
            context.cluster().restart(bulk, bulk.skew());
            context.note("restarted as " + bulk.instance());
        };
    }

    /** How long after its first trigger the last trigger of a key comes ({@link LoadDriver}), with a margin. */
    private static final long KEY_TRIGGER_SPREAD_MILLIS = 4000;

    private static final String SCENARIO_RUNS = """
            FROM %1$s.runs r WHERE r.environment = ? AND r.task_id = ? AND starts_with(r.idempotency_key, ?)""";

    /** The number of the scenario's runs once all are {@code FAILED} and it stayed the same for a second. */
    private static @Nullable Integer awaitAllFailed(FaultContext context) throws InterruptedException {
        String sql = ("SELECT count(*), count(*) FILTER (WHERE r.status = 'FAILED') " + SCENARIO_RUNS)
                .formatted(context.cluster().schema());
        int[] previous = {-1};
        return poll(context, Duration.ofMinutes(2), Duration.ofSeconds(1), connection -> {
            try (PreparedStatement statement = scenarioStatement(context, connection, sql)) {
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    int runs = rs.getInt(1);
                    boolean settled = runs > 0 && runs == rs.getInt(2) && runs == previous[0];
                    previous[0] = runs;
                    return settled ? runs : null;
                }
            }
        });
    }

    private static int resumedRuns(FaultContext context, Connection connection) throws SQLException {
        String sql = ("SELECT count(*) " + SCENARIO_RUNS + """

                  AND EXISTS (SELECT FROM %1$s.run_events e WHERE e.run_id = r.id AND e.type = 'RESUMED')""")
                .formatted(context.cluster().schema());
        try (PreparedStatement statement = scenarioStatement(context, connection, sql);
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * S-RV-4: each run is untouched or resumed as a whole. Untouched: {@code FAILED} with its first life's failure,
     * its last event that failure, no {@code RESUMED} event. Resumed: one {@code RESUMED} event, no longer {@code
     * FAILED}, its idempotency key taken again and no other run of that key.
     */
    private static void checkNoHalfResume(FaultContext context, Connection connection) throws SQLException {
        String sql = ("""
                SELECT r.id, r.status, r.failure_code, r.idempotency_key_released,
                       (SELECT count(*) FROM %1$s.run_events e WHERE e.run_id = r.id AND e.type = 'RESUMED'),
                       (SELECT e.type FROM %1$s.run_events e WHERE e.run_id = r.id ORDER BY e.seq DESC LIMIT 1),
                       (SELECT count(*) FROM %1$s.runs o WHERE o.environment = r.environment
                          AND o.task_id = r.task_id AND o.idempotency_key = r.idempotency_key AND o.id <> r.id)
                """ + SCENARIO_RUNS).formatted(context.cluster().schema());
        try (PreparedStatement statement = scenarioStatement(context, connection, sql);
                ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                UUID runId = rs.getObject(1, UUID.class);
                String status = rs.getString(2);
                int resumed = rs.getInt(5);
                String lastEvent = rs.getString(6);
                if (resumed > 1) {
                    context.violation("run " + runId + " was resumed " + resumed + " times");
                } else if (resumed == 0
                        && !(status.equals("FAILED")
                                && EffectTask.FIRST_LIFE_FAILURE.equals(rs.getString(3))
                                && "FAILED".equals(lastEvent))) {
                    context.violation("run " + runId + " has no RESUMED event but is " + status + " with failure "
                            + rs.getString(3) + " and last event " + lastEvent + ": half-resumed");
                } else if (resumed == 1 && (status.equals("FAILED") || rs.getBoolean(4) || rs.getInt(7) > 0)) {
                    context.violation("run " + runId + " was resumed but is " + status + ", key released "
                            + rs.getBoolean(4) + ", other runs of its key " + rs.getInt(7) + ": half-resumed");
                }
            }
        }
    }

    /** {@code sql}, ending in {@link #SCENARIO_RUNS}, with the scenario's environment, task and key prefix bound. */
    private static PreparedStatement scenarioStatement(FaultContext context, Connection connection, String sql)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setString(1, FaultCluster.ENVIRONMENT);
        statement.setString(2, EffectTask.ID);
        statement.setString(3, context.scenario() + ".");
        return statement;
    }

    /** 6a: 200 ms added to every round trip of one instance's database link for the whole load window. */
    static Fault latency(int target, Duration roundTrip) {
        return (context, random) -> {
            FaultNode node = context.cluster().node(target);
            node.proxy().latency(roundTrip.dividedBy(2));
            context.note("added " + roundTrip.toMillis() + " ms to every round trip of " + node.instance());
            try {
                while (context.loadRunning()) {
                    Thread.sleep(200);
                }
            } finally {
                node.proxy().latency(Duration.ZERO);
            }
        };
    }

    /** 7: a row lock held on a running run by an outside transaction for longer than the lease. */
    static Fault rowLock() {
        return (context, random) -> {
            while (context.loadRunning()) {
                FaultContext.pause(random, 1000, 3000);
                if (!context.loadRunning()) {
                    break;
                }
                long lease = FaultCluster.LEASE.toMillis();
                long hold = lease + lease / 2 + random.nextInt((int) lease / 2);
                try (Connection connection = context.cluster().connect()) {
                    connection.setAutoCommit(false);
                    UUID locked = lockRunningRun(context, connection);
                    if (locked == null) {
                        connection.rollback();
                        continue;
                    }
                    context.lockedRuns().add(locked);
                    context.note("locked running run " + locked + " for " + hold + " ms");
                    Thread.sleep(hold);
                    connection.rollback();
                } catch (SQLException ex) {
                    context.note("row lock ended early: " + ex.getMessage());
                }
            }
        };
    }

    /**
     * Locks a running run of the scenario, preferring one whose worker also runs attempts longer than the lease
     * ("bystanders"): their leases need heartbeats while the lock is held, so a heartbeat that waits for the locked
     * row costs them their leases and shows as re-executions of runs nobody locked. Looks for such a run for up to
     * five seconds before taking the longest running one.
     */
    private static UUID lockRunningRun(FaultContext context, Connection connection)
            throws SQLException, InterruptedException {
        String sql = """
                SELECT r.id,
                       (SELECT count(*) FROM %1$s.runs o
                        WHERE o.lease_owner = r.lease_owner AND o.id <> r.id AND o.status = 'RUNNING'
                          AND (o.payload ->> 'workMillis')::bigint > ?) AS bystanders
                FROM %1$s.runs r
                WHERE r.environment = ? AND starts_with(r.idempotency_key, ?) AND r.status = 'RUNNING'
                ORDER BY bystanders DESC, (r.payload ->> 'workMillis')::bigint DESC
                LIMIT 1
                FOR UPDATE OF r SKIP LOCKED""".formatted(context.cluster().schema());
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (true) {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setLong(1, FaultCluster.LEASE.toMillis());
                statement.setString(2, FaultCluster.ENVIRONMENT);
                statement.setString(3, context.scenario() + ".");
                try (ResultSet rs = statement.executeQuery()) {
                    if (rs.next() && (rs.getInt(2) > 0 || System.nanoTime() > deadline)) {
                        context.note("run " + rs.getObject(1) + " shares its worker with " + rs.getInt(2)
                                + " attempts longer than the lease");
                        return rs.getObject(1, UUID.class);
                    }
                }
            }
            connection.rollback();
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(200);
        }
    }

    /**
     * The running instance with the most attempts whose transactional step wrote its row and which have not ended;
     * waits up to five seconds for one, then answers {@code null}.
     */
    private static FaultNode nodeWithOpenSteps(FaultContext context) throws InterruptedException {
        List<FaultNode> nodes = context.cluster().nodes();
        Object[] instances = nodes.stream().map(FaultNode::instance).toArray();
        String sql = """
                SELECT instance FROM %s.effects
                WHERE instance = ANY(?) AND scenario = ? AND step_written_at IS NOT NULL AND ended_at IS NULL
                GROUP BY instance ORDER BY count(*) DESC LIMIT 1""".formatted(context.cluster().effectSchema());
        String busiest = poll(context, Duration.ofSeconds(5), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setArray(1, connection.createArrayOf("text", instances));
                statement.setString(2, context.scenario());
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            }
        });
        return nodes.stream()
                .filter(node -> node.instance().equals(busiest))
                .findFirst()
                .orElse(null);
    }

    /**
     * The newest long attempt that started less than a second ago on one of the {@code targets}, so that it is still
     * running when the link is cut; waits for one up to 15 s.
     */
    private static FaultContext.Watched awaitLongAttempt(FaultContext context, List<Integer> targets)
            throws InterruptedException {
        String sql = """
                SELECT run_id, attempt, instance FROM %s.effects
                WHERE split_part(instance, '.', 1) = ANY(?) AND scenario = ? AND ended_at IS NULL
                  AND planned_ms >= 2500 AND started_at > clock_timestamp() - interval '1 second'
                ORDER BY started_at DESC LIMIT 1""".formatted(context.cluster().effectSchema());
        Object[] names =
                targets.stream().map(i -> context.cluster().node(i).name()).toArray();
        return poll(context, Duration.ofSeconds(15), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setArray(1, connection.createArrayOf("text", names));
                statement.setString(2, context.scenario());
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next()
                            ? new FaultContext.Watched(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3))
                            : null;
                }
            }
        });
    }

    /**
     * Waits until the watched attempt's lease expired and its handler finished anyway, for at most four leases: in a
     * combined scenario every other instance may be down meanwhile, and then nobody recovers the run.
     */
    private static boolean awaitZombie(FaultContext context, FaultContext.Watched watched) throws InterruptedException {
        String sql = """
                SELECT EXISTS (SELECT FROM %s.run_events WHERE run_id = ? AND type = 'LEASE_EXPIRED'
                                 AND detail LIKE ?)
                   AND EXISTS (SELECT FROM %s.effects WHERE run_id = ? AND attempt = ? AND ended_at IS NOT NULL)""".formatted(context.cluster().schema(), context.cluster().effectSchema());
        Boolean zombie = poll(context, FaultCluster.LEASE.multipliedBy(4), connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setObject(1, watched.runId());
                statement.setString(2, "attempt " + watched.attempt() + " %");
                statement.setObject(3, watched.runId());
                statement.setInt(4, watched.attempt());
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    return rs.getBoolean(1) ? Boolean.TRUE : null;
                }
            }
        });
        return zombie != null;
    }

    /**
     * Runs {@code query} until it answers non-null or {@code timeout} passes; a query that fails (the database may be
     * restarting in a combined scenario) is tried again on a new connection.
     */
    private static <T> T poll(FaultContext context, Duration timeout, Query<T> query) throws InterruptedException {
        return poll(context, timeout, Duration.ofMillis(50), query);
    }

    /** {@link #poll(FaultContext, Duration, Query)}, asking every {@code pause}. */
    private static <T> T poll(FaultContext context, Duration timeout, Duration pause, Query<T> query)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Connection connection = context.cluster().connect()) {
                while (System.nanoTime() < deadline) {
                    T answer = query.ask(connection);
                    if (answer != null) {
                        return answer;
                    }
                    Thread.sleep(pause.toMillis());
                }
            } catch (SQLException ex) {
                Thread.sleep(200);
            }
        }
        return null;
    }

    @FunctionalInterface
    private interface Query<T> {
        T ask(Connection connection) throws SQLException;
    }
}
