package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.Run;
import io.runlane.RunStatus;
import io.runlane.internal.kernel.ClaimedRun;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-EX-29: a worker's slots and the runs claimed ahead for them, without a database. */
class WorkerSlotsTests {

    private final List<ClaimedRun> started = new ArrayList<>();

    private final AtomicLong now = new AtomicLong();

    private final WorkerSlots slots = new WorkerSlots(2, started::add, now::get);

    @Test
    @DisplayName("S-EX-1, S-EX-29: runs start on free slots; one more per slot may wait, and no more is asked for")
    void capacityIsFreeSlotsPlusOneAheadPerSlot() {
        assertThat(slots.capacity(false)).isEqualTo(2);
        assertThat(slots.capacity(true)).isEqualTo(4);
        assertThat(slots.fullCapacity(true)).isEqualTo(4);

        ClaimedRun first = run();
        ClaimedRun second = run();
        ClaimedRun third = run();
        List.of(first, second, third)
                .forEach(run -> assertThat(slots.accept(run)).isTrue());

        assertThat(started).containsExactly(first, second);
        assertThat(slots.free()).isZero();
        assertThat(slots.waiting()).isOne();
        assertThat(slots.capacity(false)).as("no slot is free").isZero();
        assertThat(slots.capacity(true))
                .as("one run already waits for one of the two slots")
                .isOne();
    }

    @Test
    @DisplayName("S-EX-29: a slot whose attempt ended takes the oldest waiting run; then it is free again")
    void aSlotTakesTheWaitingRunsInOrder() {
        slots.accept(run());
        slots.accept(run());
        ClaimedRun third = run();
        ClaimedRun fourth = run();
        slots.accept(third);
        slots.accept(fourth);

        assertThat(slots.next()).isSameAs(third);
        assertThat(slots.next()).isSameAs(fourth);
        assertThat(slots.next()).isNull();
        slots.release();
        assertThat(slots.free()).isOne();
        assertThat(started).hasSize(2);
    }

    @Test
    @DisplayName("S-EX-29: a run that arrives as a slot frees up starts on it at once")
    void aFreedSlotStartsARunThatArrivedMeanwhile() {
        slots.accept(run());
        slots.accept(run());
        ClaimedRun waiting = run();
        slots.accept(waiting);

        slots.release();

        assertThat(started).hasSize(3).last().isSameAs(waiting);
        assertThat(slots.waiting()).isZero();
        assertThat(slots.free()).isZero();
    }

    @Test
    @DisplayName("S-EX-29, S-EX-17: runs that waited too long are taken for hand-back, the others keep waiting")
    void runsWaitingTooLongAreTakenForHandBack() {
        slots.accept(run());
        slots.accept(run());
        ClaimedRun old = run();
        slots.accept(old);
        now.set(1_000);
        ClaimedRun recent = run();
        slots.accept(recent);

        assertThat(slots.takeWaitingSince(500)).containsExactly(old);
        assertThat(slots.waitingRunIds()).containsExactly(recent.run().id());
        assertThat(slots.takeWaitingSince(500)).isEmpty();
    }

    @Test
    @DisplayName("S-EX-17: closing returns the waiting runs for hand-back and refuses new ones")
    void closingReturnsWaitingRunsAndRefusesNewOnes() {
        slots.accept(run());
        slots.accept(run());
        ClaimedRun waiting = run();
        slots.accept(waiting);

        assertThat(slots.close()).containsExactly(waiting);
        assertThat(slots.accept(run())).isFalse();
        assertThat(slots.next()).isNull();
        slots.release();
        assertThat(started).hasSize(2);
    }

    @Test
    @DisplayName("S-EX-29: under concurrent arrivals and releases, every run starts exactly once and none is left"
            + " waiting beside a free slot")
    void noRunIsStrandedUnderRaces() throws Exception {
        int concurrency = 4;
        int runs = 20_000;
        ExecutorService slotThreads = Executors.newFixedThreadPool(concurrency);
        Set<UUID> ran = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(runs);
        WorkerSlots[] holder = new WorkerSlots[1];
        holder[0] = new WorkerSlots(
                concurrency,
                first -> slotThreads.execute(() -> {
                    ClaimedRun current = first;
                    while (current != null) {
                        if (!ran.add(current.run().id())) {
                            duplicates.incrementAndGet();
                        }
                        done.countDown();
                        current = holder[0].next();
                    }
                    holder[0].release();
                }));
        WorkerSlots racing = holder[0];
        try {
            for (int i = 0; i < runs; i++) {
                while (racing.capacity(true) == 0) {
                    Thread.onSpinWait();
                }
                racing.accept(run());
            }
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(ran).hasSize(runs);
            assertThat(duplicates).hasValue(0);
            assertThat(racing.awaitAllFree(10, TimeUnit.SECONDS)).isTrue();
            assertThat(racing.waiting()).isZero();
        } finally {
            slotThreads.shutdownNow();
        }
    }

    private static ClaimedRun run() {
        Instant now = Instant.now();
        Run run = new Run(
                UUID.randomUUID(),
                "t",
                "default",
                RunStatus.RUNNING,
                null,
                null,
                1,
                3,
                now,
                now,
                now,
                null,
                null,
                "{}",
                null,
                null,
                null,
                null,
                null,
                1,
                0,
                null,
                null);
        return new ClaimedRun(run, 1, 0);
    }
}
