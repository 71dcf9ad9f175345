package io.runlane.internal.kernel;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Group commit for writes that run alone in auto-commit: concurrent callers' items are written by one statement and one
 * commit instead of one each, as PostgreSQL's own group commit shares one WAL flush between transactions. Every caller
 * still returns only once its own item is committed, with its own answer. The triggers' group commit (S-TR-13) and
 * the steps' (S-ST-16) are two, each with its own {@link Limits}.
 *
 * <p>There is no timer and no lingering: a caller that finds one of the {@link Limits#lanes lanes} free leads, taking
 * every item queued so far (its own included); callers that arrive while every lane is taken queue up, and the leader
 * that frees a lane wakes the caller of the oldest queued item, who leads the next group. Alone, a caller leads a
 * group of one, which the statement may write with the single-item statement. While no more than {@link
 * Limits#soloLanes} callers are writing, there is nobody to group a waiting caller with, so each of them may open a
 * lane of its own, up to that many: waiting would only leave the database's own group commit idle. A waiting caller is
 * woken only when its item is settled or when it is to lead, never by every group's end: on a machine with few cores,
 * waking threads that only go back to sleep costs about what a shared commit saves.
 *
 * <p>A group never makes one caller wait for another's problem:
 *
 * <ul>
 *   <li>the group statement settles what it can without waiting for another transaction, and answers {@code null}
 *       for an item it could not settle; that item is handed back to its own caller, who writes it alone, waiting only
 *       for its own locks;
 *   <li>a statement that failed before it could commit anything (a lock timeout, a constraint, a deadlock) hands every
 *       item back in the same way;
 *   <li>only a lost connection, after which nobody knows whether the statement committed, fails every caller of the
 *       group with the error, as it would have failed each of them alone; so does anything else the leader meets that
 *       is not a database's refusal, an {@link Error} included: every caller gets an answer or an exception, none waits
 *       forever for a leader that gave up.
 * </ul>
 *
 * @param <I> what a caller writes
 * @param <A> the answer a caller gets for it
 */
public final class GroupCommit<I, A> {

    /**
     * How groups form.
     *
     * @param maxGroup the most items one statement writes
     * @param lanes how many groups may be in flight at once while more than {@code soloLanes} callers are writing
     * @param soloLanes how many groups may be in flight while no more callers than that are writing
     */
    public record Limits(int maxGroup, int lanes, int soloLanes) {

        public Limits {
            if (maxGroup < 1 || lanes < 1 || soloLanes < lanes) {
                throw new IllegalArgumentException("maxGroup and lanes must be positive, soloLanes at least lanes");
            }
        }
    }

    /** What the statement said for each item of a group, in order; {@code null} where the item's caller writes it. */
    public interface Statement<I, A> {
        List<@Nullable A> write(List<I> items);
    }

    /**
     * How long a waiting caller sleeps at most before it looks at its item again: it is woken when its item is settled
     * or when it may lead, and this only bounds the cost of a wake-up that never came.
     */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Limits limits;

    private final Statement<I, A> together;

    private final Function<I, A> alone;

    private final Queue<Pending> queued = new ConcurrentLinkedQueue<>();

    private final Semaphore lanes;

    private final AtomicInteger callers = new AtomicInteger();

    /**
     * @param together writes a group in one statement, alone in auto-commit
     * @param alone writes one item alone, on its caller's thread
     */
    public GroupCommit(Limits limits, Statement<I, A> together, Function<I, A> alone) {
        this.limits = limits;
        this.together = together;
        this.alone = alone;
        this.lanes = new Semaphore(limits.soloLanes());
    }

    /** Writes {@code item}, in a group with whatever items other callers are writing at the same moment. */
    public A write(I item) {
        Pending mine = new Pending(item, Thread.currentThread());
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
                        wakeNextLeader();
                    }
                } else {
                    LockSupport.parkNanos(this, RECHECK_NANOS);
                    interrupted |= Thread.interrupted();
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

    /** Fewer than {@link Limits#lanes} groups are in flight, or so few callers are writing that each may lead alone. */
    private boolean mayOpenLane() {
        int inFlight = limits.soloLanes() - lanes.availablePermits();
        return inFlight < limits.lanes() || (inFlight < limits.soloLanes() && callers.get() <= limits.soloLanes());
    }

    /**
     * Writes one group: the items queued so far, at most {@link Limits#maxGroup}. Settles every item of the group
     * whatever the leader meets: an {@link Error} (or any other throwable) from the statement or from reading its
     * answers fails each caller still waiting with it, like a lost connection, since the statement may have committed.
     */
    private void lead() {
        List<Pending> group = new ArrayList<>();
        for (Pending next = queued.poll();
                next != null;
                next = group.size() < limits.maxGroup() ? queued.poll() : null) {
            next.taken();
            group.add(next);
        }
        if (group.isEmpty()) {
            return;
        }
        try {
            writeTogether(group);
        } catch (Throwable ex) {
            for (Pending pending : group) {
                if (!pending.settled()) {
                    pending.fail(ex);
                }
            }
        }
    }

    private void writeTogether(List<Pending> group) {
        List<@Nullable A> answers;
        try {
            answers = together.write(group.stream().map(Pending::item).toList());
        } catch (RuntimeException ex) {
            if (outcomeUnknown(ex)) {
                group.forEach(pending -> pending.fail(ex));
            } else {
                group.forEach(Pending::writeAlone);
            }
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            A answer = answers.get(i);
            if (answer == null) {
                group.get(i).writeAlone();
            } else {
                group.get(i).answer(answer);
            }
        }
    }

    /**
     * After a lane was freed: wakes the caller of the oldest queued item, which leads the next group. Each waiting
     * caller is woken only when its own item is settled or when it may lead, so a group's end wakes its callers and one
     * leader rather than everyone waiting. A caller that queues after this looked at the queue finds the lane free
     * itself.
     */
    private void wakeNextLeader() {
        Pending next = queued.peek();
        if (next != null) {
            LockSupport.unpark(next.caller);
        }
    }

    /**
     * Whether the statement may have committed although it failed: the connection broke (SQLState class 08, or an I/O
     * failure without a state). Any other failure came from the database before the commit.
     */
    public static boolean outcomeUnknown(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                String state = sql.getSQLState();
                return state == null || state.startsWith("08");
            }
        }
        return true;
    }

    /** One caller's item and what became of it. */
    private final class Pending {

        private final I item;

        /** The thread waiting for the item's answer. */
        private final Thread caller;

        private volatile @Nullable A answer;

        private volatile @Nullable Throwable failure;

        private volatile boolean alone;

        private volatile boolean inGroup;

        Pending(I item, Thread caller) {
            this.item = item;
            this.caller = caller;
        }

        I item() {
            return item;
        }

        /** A leader took the item into its group. */
        void taken() {
            this.inGroup = true;
        }

        boolean inGroup() {
            return inGroup;
        }

        boolean settled() {
            return answer != null || failure != null || alone;
        }

        void answer(A written) {
            this.answer = written;
            wakeCaller();
        }

        void fail(Throwable ex) {
            this.failure = ex;
            wakeCaller();
        }

        /** Hands the item back to its caller, who writes it alone. */
        void writeAlone() {
            this.alone = true;
            wakeCaller();
        }

        /** Wakes the caller, unless it is the leader settling its own item. */
        private void wakeCaller() {
            if (caller != Thread.currentThread()) {
                LockSupport.unpark(caller);
            }
        }

        /** On the caller's thread, once settled. */
        A answer() {
            Throwable failed = failure;
            if (failed instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (failed instanceof Error error) {
                throw error;
            }
            if (failed != null) {
                throw new IllegalStateException("Writing the group failed", failed);
            }
            A written = answer;
            return written != null ? written : GroupCommit.this.alone.apply(item);
        }
    }
}
