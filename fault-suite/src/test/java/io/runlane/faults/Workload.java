package io.runlane.faults;

import java.time.Duration;
import java.util.Random;

/** What a scenario's handlers do, and how many keys its load triggers with which planned work. */
enum Workload {

    /**
     * Keys at the suite's rate; a handler only works for its planned time, the effect log standing in for a side
     * effect. Most work 20 to 200 ms; every tenth key works 2.5 to 10 s, often longer than the lease, so that attempts
     * are in flight and leases are being extended when a fault hits.
     */
    EFFECTS,

    /**
     * 32 keys; a handler writes one row of an application table in a transactional step (S-ST-8) that holds its
     * transaction for four fifths of the work, so that a fault hits steps whose row is written but not committed.
     * Most work 2 to 5 s; every fourth key 7 to 9 s, so its step outlasts the lease and needs heartbeats while it
     * runs (S-ST-15).
     */
    TRANSACTIONAL_STEPS,

    /**
     * 300 keys whose runs fail their first life ({@link EffectTask.Payload#failFirstLife()}) and work 20 to 200 ms
     * once resumed: the failed runs a bulk resume acts on (S-RV-4).
     */
    FAILING_FIRST_LIFE,

    /**
     * {@link DebounceLoad#KEYS} debounce keys of {@link DebounceTask}, each triggered in bursts ({@link DebounceLoad});
     * the runs of every other key work 2 to 6 s, so that kills cut attempts in flight and some outlast the lease;
     * the others work 20 to 200 ms.
     */
    DEBOUNCED;

    /** Which runs are the workload's. */
    Evidence.Selection runs() {
        return this == DEBOUNCED ? Evidence.Selection.DEBOUNCED : Evidence.Selection.IDEMPOTENT;
    }

    /** How many keys the load triggers at {@code rate} keys per second over {@code window}. */
    int keys(int rate, Duration window) {
        return switch (this) {
            case TRANSACTIONAL_STEPS -> 32;
            case FAILING_FIRST_LIFE -> 300;
            case DEBOUNCED -> DebounceLoad.KEYS;
            case EFFECTS -> (int) (rate * window.toSeconds());
        };
    }

    /** The planned work of key number {@code key}, drawn from the scenario's seeded source. */
    long workMillis(int key, Random random) {
        if (this == TRANSACTIONAL_STEPS) {
            return key % 4 == 3 ? 7000 + random.nextInt(2000) : 2000 + random.nextInt(3000);
        }
        if (this == FAILING_FIRST_LIFE) {
            return 20 + random.nextInt(180);
        }
        if (this == DEBOUNCED) {
            return key % 2 == 1 ? 2000 + random.nextInt(4000) : 20 + random.nextInt(180);
        }
        return key % 10 == 5 ? 2500 + random.nextInt(7500) : 20 + random.nextInt(180);
    }

    /** The part of {@code workMillis} a transactional step holds its transaction for. */
    static long stepMillis(long workMillis) {
        return workMillis * 4 / 5;
    }
}
