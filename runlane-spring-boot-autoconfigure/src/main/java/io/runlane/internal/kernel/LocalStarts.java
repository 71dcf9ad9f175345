package io.runlane.internal.kernel;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Where a trigger asks this instance's running worker for a slot to start its run on after the trigger's own commit
 * (S-EX-36). The worker offers itself while it runs; the trigger side never depends on the worker, only on this.
 *
 * <p>A {@link Reservation} holds one free slot of the worker. The trigger stores its run already claimed by that
 * worker, with the reservation's lease, and then either {@linkplain Reservation#start starts} the stored claim on the
 * slot or {@linkplain Reservation#cancel cancels} the reservation, exactly once: right after its statement, or, in a
 * caller's transaction, when that transaction ends.
 */
public final class LocalStarts {

    /** A worker that can start runs of some tasks on slots it reserves for them. */
    public interface Starter {

        /**
         * A slot for a run of {@code taskId} on {@code queue}, or {@code null} when this worker has none free or must
         * claim such runs itself (its queue has a concurrency limit, its task a throttle, or the worker does not run
         * that task or queue).
         */
        @Nullable
        Reservation reserve(String taskId, String queue);
    }

    /** One free slot of a worker, held for one run. */
    public interface Reservation {

        /** The worker that is to hold the run's lease. */
        String workerId();

        /** The lease the run is to be stored with, from the database clock. */
        Duration lease();

        /**
         * Starts the run stored claimed by this reservation's worker, after its statement committed; hands it back
         * (S-EX-17) when the worker stopped meanwhile. Never throws.
         */
        void start(ClaimedRun run);

        /** Frees the slot: the run was not stored claimed, not for sure, or its transaction rolled back. */
        void cancel();
    }

    private volatile @Nullable Starter starter;

    /** Offers {@code starter}'s slots to triggers; {@code null} withdraws them (the worker stops). */
    public void offer(@Nullable Starter starter) {
        this.starter = starter;
    }

    /** A slot of the running local worker for a run of {@code taskId} on {@code queue}; {@code null} if none. */
    public @Nullable Reservation reserve(String taskId, String queue) {
        Starter current = starter;
        return current == null ? null : current.reserve(taskId, queue);
    }
}
