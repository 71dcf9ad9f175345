package io.runlane.faults;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a fault injector of a running scenario works with: the cluster, its own seeded random source, the end of the
 * load window, and where it records what it did (which processes it killed or stopped, which zombie it watched, which
 * claim answers it held back).
 */
final class FaultContext {

    private final FaultCluster cluster;

    private final String scenario;

    private final long deadlineNanos;

    private final Set<String> killed = ConcurrentHashMap.newKeySet();

    private final Set<String> stopped = ConcurrentHashMap.newKeySet();

    private final List<String> notes = new CopyOnWriteArrayList<>();

    private final List<Watched> watched = new CopyOnWriteArrayList<>();

    private final Set<UUID> lockedRuns = ConcurrentHashMap.newKeySet();

    private final List<LateClaim> lateClaims = new CopyOnWriteArrayList<>();

    private final List<String> violations = new CopyOnWriteArrayList<>();

    private final List<Halted> halted = new CopyOnWriteArrayList<>();

    private volatile int resumedAtKill = -1;

    /** An attempt a partition was meant to turn into a zombie whose completion is refused. */
    record Watched(UUID runId, int attempt, String instance) {}

    /**
     * A claim of attempt {@code attempt} on {@code instance} whose answer was held until the lease expired and attempt
     * {@code laterAttempt} of the run ran on {@code laterInstance}; only then did the answer arrive (S-EX-30).
     */
    record LateClaim(UUID runId, int attempt, String instance, int laterAttempt, String laterInstance) {}

    /** An instance that ended itself right after its trigger of {@code key} created its run (S-EX-36). */
    record Halted(String instance, String key) {}

    FaultContext(FaultCluster cluster, String scenario, long deadlineNanos) {
        this.cluster = cluster;
        this.scenario = scenario;
        this.deadlineNanos = deadlineNanos;
    }

    FaultCluster cluster() {
        return cluster;
    }

    String scenario() {
        return scenario;
    }

    /** Whether the load window is still open, so another fault may start. */
    boolean loadRunning() {
        return System.nanoTime() < deadlineNanos;
    }

    /** How long the load window stays open; zero once it closed. */
    Duration untilLoadEnds() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    Set<String> killed() {
        return killed;
    }

    Set<String> stopped() {
        return stopped;
    }

    List<Watched> watched() {
        return watched;
    }

    /** Claims whose answers arrived while a later attempt of their run was running elsewhere. */
    List<LateClaim> lateClaims() {
        return lateClaims;
    }

    /** Runs whose row an outside transaction locked. */
    Set<UUID> lockedRuns() {
        return lockedRuns;
    }

    List<String> notes() {
        return notes;
    }

    /** Broken promises an injector saw while the scenario ran, which the drained evidence cannot show. */
    /** The instances that ended right after a trigger created a run, and the keys of those runs. */
    List<Halted> halted() {
        return halted;
    }

    /** The scenario name the payloads of {@link #halted} runs carry, apart from the load's keys. */
    static String haltedScenario(String scenario) {
        return "halted-" + scenario;
    }

    List<String> violations() {
        return violations;
    }

    void violation(String text) {
        violations.add(text);
        System.out.println("FAULTS-EVENT scenario=" + scenario + " VIOLATION " + text);
    }

    /** How many runs a bulk resume had resumed when its instance was killed; -1 when no such kill happened. */
    int resumedAtKill() {
        return resumedAtKill;
    }

    void resumedAtKill(int resumed) {
        resumedAtKill = resumed;
    }

    void note(String text) {
        notes.add(text);
        System.out.println("FAULTS-EVENT scenario=" + scenario + " " + text);
    }

    /** Sleeps a random time in {@code [minMillis, maxMillis)}: the fault schedule, drawn from the seed. */
    static void pause(Random random, long minMillis, long maxMillis) throws InterruptedException {
        Thread.sleep(minMillis + (long) (random.nextDouble() * (maxMillis - minMillis)));
    }
}
