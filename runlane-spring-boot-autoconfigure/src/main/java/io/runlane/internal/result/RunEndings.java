package io.runlane.internal.result;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.SqlTemplate;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Wakes callers of {@code runs().awaitResult} when runs end (S-RS-2). One per engine:
 *
 * <ol>
 *   <li>a caller subscribes to a run's end in memory ({@link #subscribe}) and only then reads the run, so an end
 *       that happens after the read always finds the subscription: no wake-up can be missed;
 *   <li>when this instance records a terminal outcome (it hears of it as an {@link EngineListener}), it wakes its
 *       own subscribers at once and queues the run id for the {@link EndingSender}, whose one daemon thread sends
 *       the ids, coalesced, as a {@code NOTIFY} on {@code runlane_<schema>_ended} and wakes the {@code WAITING} runs
 *       that await those runs (S-RS-4, S-CP-3);
 *   <li>the {@link EndingListener}'s one listening connection per engine, opened while anybody waits (and for a
 *       while after), wakes the subscribers of the ids it hears from other instances.
 * </ol>
 *
 * Notifications are only hints; callers also poll, so a lost connection or notification costs latency, never a
 * wrong answer.
 */
public final class RunEndings implements EngineListener {

    /** One caller waiting for one run to end. */
    public static final class Subscription {

        private final UUID runId;

        private boolean signalled;

        private Subscription(UUID runId) {
            this.runId = runId;
        }

        synchronized void signal() {
            signalled = true;
            notifyAll();
        }

        /** Waits until signalled or {@code timeout} passed; clears the signal. */
        public synchronized void await(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            long remaining;
            while (!signalled && (remaining = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, remaining);
            }
            signalled = false;
        }
    }

    private final ConcurrentHashMap<UUID, Set<Subscription>> subscriptions = new ConcurrentHashMap<>();

    private final EndingSender sender;

    private final EndingListener listener;

    public RunEndings(DataSource dataSource, SqlTemplate sql, DueRunNotifier workers) {
        String channel = "runlane_" + sql.schema() + "_ended";
        this.sender = new EndingSender(dataSource, sql, workers, channel);
        this.listener =
                new EndingListener(dataSource, channel, this::wake, this::wakeEveryone, () -> !subscriptions.isEmpty());
    }

    /**
     * Subscribes to the end of a run. Waits briefly until the listening connection listens, so that an end recorded
     * by another instance after the caller's first read is heard.
     */
    public Subscription subscribe(UUID runId) {
        Subscription subscription = new Subscription(runId);
        // Added inside compute: an unsubscribe that empties and removes the set cannot orphan this subscription.
        subscriptions.compute(runId, (id, set) -> {
            Set<Subscription> waiting = set == null ? ConcurrentHashMap.newKeySet() : set;
            waiting.add(subscription);
            return waiting;
        });
        CountDownLatch ready = listener.ensureListening();
        try {
            ready.await(1, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return subscription;
    }

    public void unsubscribe(Subscription subscription) {
        subscriptions.computeIfPresent(subscription.runId, (id, set) -> {
            set.remove(subscription);
            return set.isEmpty() ? null : set;
        });
    }

    /** How many callers of this instance wait for the run to end now. */
    public int subscribers(UUID runId) {
        Set<Subscription> waiting = subscriptions.get(runId);
        return waiting == null ? 0 : waiting.size();
    }

    /** This instance recorded that the run ended: wake local subscribers and tell other instances. */
    public void ended(UUID runId) {
        wake(runId);
        sender.ended(runId);
    }

    @Override
    public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
        if (result.equals("succeeded") || result.equals("failed") || result.equals("cancelled")) {
            ended(claimed.run().id());
        } else if (result.equals("lease_lost")) {
            sender.attemptRefused(claimed.run().id(), claimed.fencingToken());
        }
    }

    @Override
    public void runEnded(UUID runId, RunStatus status) {
        ended(runId);
    }

    /** Ends the sender and the listener (S-MO-4); later ends only wake this instance's callers. */
    public void stop() {
        @Nullable Thread sending = sender.stop();
        @Nullable Thread listening = listener.stop();
        for (Thread thread : new Thread[] {sending, listening}) {
            if (thread != null) {
                thread.interrupt();
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(10));
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    static CustomizableThreadFactory daemon(String prefix) {
        CustomizableThreadFactory threads = new CustomizableThreadFactory(prefix);
        threads.setDaemon(true);
        return threads;
    }

    private void wake(UUID runId) {
        Set<Subscription> waiting = subscriptions.get(runId);
        if (waiting != null) {
            waiting.forEach(Subscription::signal);
        }
    }

    private void wakeEveryone() {
        subscriptions.values().forEach(set -> set.forEach(Subscription::signal));
    }
}
