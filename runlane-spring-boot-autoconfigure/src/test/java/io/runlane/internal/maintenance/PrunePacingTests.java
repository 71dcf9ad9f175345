package io.runlane.internal.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-OP-11: the pruner's pace follows how long its batches take, with a clock and sleeper of the test's own. */
class PrunePacingTests {

    private final AtomicLong now = new AtomicLong();

    private final List<Long> slept = new ArrayList<>();

    private PrunePacing pacing(int maxBatch, Duration target, double restFactor) {
        return new PrunePacing(maxBatch, target, restFactor, slept::add, now::get);
    }

    /** Runs one batch that takes {@code millis}; returns the size it was given. */
    private int batch(PrunePacing pacing, long millis, boolean more) throws InterruptedException {
        int size = pacing.startBatch();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        pacing.batchEnded(more);
        return size;
    }

    @Test
    @DisplayName("S-OP-11: after each batch the pass rests in proportion to how long the batch took")
    void restsInProportionToTheBatch() throws InterruptedException {
        PrunePacing pacing = pacing(1000, Duration.ofMillis(20), 1.5);

        batch(pacing, 4, true);
        batch(pacing, 10, true);

        assertThat(slept).containsExactly(TimeUnit.MILLISECONDS.toNanos(6), TimeUnit.MILLISECONDS.toNanos(15));
    }

    @Test
    @DisplayName("S-OP-11: the last batch of a pass is not followed by a rest")
    void noRestAfterTheLastBatch() throws InterruptedException {
        PrunePacing pacing = pacing(1000, Duration.ofMillis(20), 1);

        batch(pacing, 10, false);

        assertThat(slept).isEmpty();
    }

    @Test
    @DisplayName("S-OP-11: a batch slower than the target shrinks the next one to take about the target")
    void slowBatchesShrink() throws InterruptedException {
        PrunePacing pacing = pacing(1000, Duration.ofMillis(20), 1);

        assertThat(batch(pacing, 80, true)).isEqualTo(1000);
        assertThat(pacing.batchSize()).isEqualTo(250);
        assertThat(batch(pacing, 1_000_000, true)).isEqualTo(250);
        assertThat(pacing.batchSize()).as("never below the minimum").isEqualTo(PrunePacing.MIN_BATCH);
    }

    @Test
    @DisplayName("S-OP-11: a batch is sized by its statement's work, not by a slow commit; the rest still follows the"
            + " whole batch")
    void slowCommitsDoNotShrinkBatches() throws InterruptedException {
        PrunePacing pacing = pacing(1000, Duration.ofMillis(20), 1);
        pacing.startBatch();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
        pacing.batchEnded(true, TimeUnit.MILLISECONDS.toNanos(10));

        assertThat(pacing.batchSize()).as("10 ms of work for a 20 ms target").isEqualTo(1000);
        assertThat(slept).containsExactly(TimeUnit.MILLISECONDS.toNanos(200));

        pacing.startBatch();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
        pacing.batchEnded(true, TimeUnit.MILLISECONDS.toNanos(80));
        assertThat(pacing.batchSize()).as("80 ms of work").isEqualTo(250);
    }

    @Test
    @DisplayName("S-OP-11: fast batches grow back, at most doubling each time, never past the requested size")
    void fastBatchesGrowBack() throws InterruptedException {
        PrunePacing pacing = pacing(1000, Duration.ofMillis(20), 1);
        batch(pacing, 200, true);
        assertThat(pacing.batchSize()).isEqualTo(100);

        assertThat(batch(pacing, 1, true)).isEqualTo(100);
        assertThat(pacing.batchSize()).isEqualTo(200);
        batch(pacing, 1, true);
        batch(pacing, 1, true);
        assertThat(pacing.batchSize()).isEqualTo(800);
        batch(pacing, 1, true);
        assertThat(pacing.batchSize()).isEqualTo(1000);
        batch(pacing, 1, true);
        assertThat(pacing.batchSize()).isEqualTo(1000);
    }

    @Test
    @DisplayName("S-OP-11, S-OP-3: a requested batch smaller than the minimum is kept as requested")
    void smallRequestedBatchesStay() throws InterruptedException {
        PrunePacing pacing = pacing(3, Duration.ofMillis(20), 1);

        assertThat(batch(pacing, 500, true)).isEqualTo(3);
        assertThat(pacing.batchSize()).isEqualTo(3);
    }

    @Test
    @DisplayName("S-OP-11: an interrupt while resting reaches the caller")
    void interruptWhileResting() {
        PrunePacing pacing = new PrunePacing(
                1000,
                Duration.ofMillis(20),
                1,
                nanos -> {
                    throw new InterruptedException("test");
                },
                now::get);
        pacing.startBatch();
        now.addAndGet(1_000_000);

        assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> pacing.batchEnded(true));
    }
}
