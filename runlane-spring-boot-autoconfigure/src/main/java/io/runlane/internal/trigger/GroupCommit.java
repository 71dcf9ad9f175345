package io.runlane.internal.trigger;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Group commit (S-TR-13) for triggers that run alone in auto-commit: concurrent callers' runs are admitted by one statement and
 * one commit instead of one each, as PostgreSQL's own group commit shares one WAL flush between transactions. Every
 * caller still returns only once its own run is committed, with its own answer.
 *
 * <p>There is no timer and no lingering: a caller that finds one of the {@link #LANES} free leads, taking every run
 * queued so far (its own included); callers that arrive while every lane is taken queue up, and the next of them to
 * find a lane free leads the next group. Alone, a caller leads a group of one, which the statement may admit with the
 * single-run statement. While no more than {@link #SOLO_LANES} callers are admitting, there is nobody to group a
 * waiting caller with, so each of them may open a lane of its own, up to that many: waiting would only leave the
 * database's own group commit idle.
 *
 * <p>A group never makes one caller wait for another's problem:
 *
 * <ul>
 *   <li>the group statement inserts with {@code ON CONFLICT DO NOTHING} and gives up on any lock after a short
 *       {@code lock_timeout}; a run it could not settle (a singleton holder refused it, an owner committed while it
 *       ran, a lock was held) is handed back to its own caller, who admits it alone, waiting only for its own
 *       locks;
 *   <li>a statement that failed before it could commit anything (a lock timeout, a constraint, a deadlock) hands
 *       every run back in the same way;
 *   <li>only a lost connection, after which nobody knows whether the statement committed, fails every caller of the
 *       group with the error, as it would have failed each of them alone; so does anything else the leader meets
 *       that is not a database's refusal, an {@link Error} included: every caller gets an answer or an exception,
 *       none waits forever for a leader that gave up.
 * </ul>
 */
final class GroupCommit {

    /** The most runs one statement admits. */
    static final int MAX_GROUP = 64;

    /**
     * How many groups may be in flight at once. With one, every statement waited for the previous group's commit, and
     * the database had a core idle meanwhile; with two, 16 triggering threads admitted 12,000 runs/s instead of 9,400
     * (the benchmarks' {@code trigger, new runs}), and fewer threads were no slower.
     */
    static final int LANES = 2;

    /**
     * How many groups may be in flight while no more callers than that are admitting. With two lanes, 4 triggering
     * threads admitted 2,600-2,800 runs/s, since two of them always waited for a lane to group with one other; with
     * four lanes for them, 3,100-3,450 (the benchmarks' {@code trigger, new runs}). With many callers, four lanes
     * made smaller groups and were slower (16 threads: 5,300-7,100 against 7,600-8,500 runs/s), so those get
     * {@link #LANES}.
     */
    static final int SOLO_LANES = 4;

    /** What the statement said for each run of a group, in order; {@code null} where the run's caller admits it. */
    interface Statement {
        List<@Nullable Admission> admit(List<NewRun> runs);
    }

    private final Statement together;

    private final Function<NewRun, Admission> alone;

    private final Queue<Pending> queued = new ConcurrentLinkedQueue<>();

    private final Semaphore lanes = new Semaphore(SOLO_LANES);

    private final AtomicInteger callers = new AtomicInteger();

    private final ReentrantLock turns = new ReentrantLock();

    private final Condition groupEnded = turns.newCondition();

    GroupCommit(Statement together, Function<NewRun, Admission> alone) {
        this.together = together;
        this.alone = alone;
    }

    /** Admits {@code run}, in a group with whatever runs other callers are admitting at the same moment. */
    Admission admit(NewRun run) {
        Pending mine = new Pending(run);
        callers.incrementAndGet();
        boolean interrupted = false;
        try {
            queued.add(mine);
            while (!mine.settled()) {
                if (!mine.inGroup() && mayOpenLane() && lanes.tryAcquire()) {
                    try {
                        lead();
                    } finally {
                        lanes.release();
                        signalGroupEnded();
                    }
                } else {
                    interrupted |= awaitGroupEnd(mine);
                }
            }
        } finally {
            callers.decrementAndGet();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return mine.answer();
    }

    /** Fewer than {@link #LANES} groups are in flight, or so few callers are admitting that each may lead alone. */
    private boolean mayOpenLane() {
        int inFlight = SOLO_LANES - lanes.availablePermits();
        return inFlight < LANES || (inFlight < SOLO_LANES && callers.get() <= SOLO_LANES);
    }

    /**
     * Admits one group: the runs queued so far, at most {@link #MAX_GROUP}. Settles every run of the group whatever
     * the leader meets: an {@link Error} (or any other throwable) from the statement or from reading its answers
     * fails each caller still waiting with it, like a lost connection, since the statement may have committed.
     */
    private void lead() {
        List<Pending> group = new ArrayList<>();
        for (Pending next = queued.poll(); next != null; next = group.size() < MAX_GROUP ? queued.poll() : null) {
            next.taken();
            group.add(next);
        }
        if (group.isEmpty()) {
            return;
        }
        try {
            admitTogether(group);
        } catch (Throwable ex) {
            for (Pending pending : group) {
                if (!pending.settled()) {
                    pending.fail(ex);
                }
            }
        }
    }

    private void admitTogether(List<Pending> group) {
        List<@Nullable Admission> answers;
        try {
            answers = together.admit(runs(group));
        } catch (RuntimeException ex) {
            if (outcomeUnknown(ex)) {
                group.forEach(pending -> pending.fail(ex));
            } else {
                group.forEach(Pending::admitAlone);
            }
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            Admission answer = answers.get(i);
            if (answer == null) {
                group.get(i).admitAlone();
            } else {
                group.get(i).answer(answer);
            }
        }
    }

    private static List<NewRun> runs(List<Pending> group) {
        List<NewRun> runs = new ArrayList<>(group.size());
        for (Pending pending : group) {
            runs.add(pending.run());
        }
        return runs;
    }

    /**
     * Waits until a group ends, while the caller's run is in a group in flight or it may not open a lane; {@code true}
     * if interrupted meanwhile.
     */
    private boolean awaitGroupEnd(Pending mine) {
        turns.lock();
        try {
            if (!mine.settled() && (mine.inGroup() || !mayOpenLane())) {
                groupEnded.await(10, TimeUnit.MILLISECONDS);
            }
            return false;
        } catch (InterruptedException ex) {
            return true;
        } finally {
            turns.unlock();
        }
    }

    private void signalGroupEnded() {
        turns.lock();
        try {
            groupEnded.signalAll();
        } finally {
            turns.unlock();
        }
    }

    /**
     * Whether the statement may have committed although it failed: the connection broke (SQLState class 08, or an
     * I/O failure without a state). Any other failure came from the database before the commit.
     */
    static boolean outcomeUnknown(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                String state = sql.getSQLState();
                return state == null || state.startsWith("08");
            }
        }
        return true;
    }

    /** One caller's run and what became of it. */
    private final class Pending {

        private final NewRun run;

        private volatile @Nullable Admission answer;

        private volatile @Nullable Throwable failure;

        private volatile boolean alone;

        private volatile boolean inGroup;

        Pending(NewRun run) {
            this.run = run;
        }

        NewRun run() {
            return run;
        }

        /** A leader took the run into its group. */
        void taken() {
            this.inGroup = true;
        }

        boolean inGroup() {
            return inGroup;
        }

        boolean settled() {
            return answer != null || failure != null || alone;
        }

        void answer(Admission admission) {
            this.answer = admission;
        }

        void fail(Throwable ex) {
            this.failure = ex;
        }

        /** Hands the run back to its caller, who admits it alone. */
        void admitAlone() {
            this.alone = true;
        }

        /** On the caller's thread, once settled. */
        Admission answer() {
            Throwable failed = failure;
            if (failed instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (failed instanceof Error error) {
                throw error;
            }
            if (failed != null) {
                throw new IllegalStateException("Admitting the group failed", failed);
            }
            Admission admitted = answer;
            return admitted != null ? admitted : GroupCommit.this.alone.apply(run);
        }
    }
}
