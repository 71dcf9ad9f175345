package io.runlane.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an operation from several threads for a fixed time and reports operations per second. Rounds of the
 * subject and its baseline alternate, so drift of the machine affects both alike; the median is reported with the
 * spread (lowest and highest round).
 */
final class Measurement {

    /** One operation; {@code worker} is the calling thread's index and {@code sequence} counts its calls. */
    @FunctionalInterface
    interface Operation {
        void run(int worker, long sequence) throws Exception;
    }

    /** The rounds of one side of a comparison. */
    record Rounds(List<Double> perSecond) {

        double median() {
            List<Double> sorted = perSecond.stream().sorted().toList();
            int middle = sorted.size() / 2;
            return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
        }

        double min() {
            return perSecond.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        }

        double max() {
            return perSecond.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        }
    }

    private Measurement() {}

    /** Returns the subject's and the baseline's rounds, after one warm-up round of each. */
    static Rounds[] compare(int threads, long roundMillis, int rounds, Operation subject, Operation baseline)
            throws Exception {
        throughput(threads, roundMillis, subject);
        throughput(threads, roundMillis, baseline);
        List<Double> subjectRounds = new ArrayList<>();
        List<Double> baselineRounds = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            subjectRounds.add(throughput(threads, roundMillis, subject));
            baselineRounds.add(throughput(threads, roundMillis, baseline));
        }
        return new Rounds[] {new Rounds(subjectRounds), new Rounds(baselineRounds)};
    }

    private static long sequenceBase;

    static double throughput(int threads, long millis, Operation operation) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        AtomicBoolean running = new AtomicBoolean(true);
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        long base = sequenceBase;
        sequenceBase += 1_000_000_000L;
        try {
            List<Future<Long>> counts = new ArrayList<>();
            for (int worker = 0; worker < threads; worker++) {
                int index = worker;
                counts.add(executor.submit(() -> {
                    start.await();
                    long done = 0;
                    while (running.get()) {
                        operation.run(index, base + index * 10_000_000L + done);
                        done++;
                    }
                    return done;
                }));
            }
            start.await();
            long began = System.nanoTime();
            Thread.sleep(millis);
            running.set(false);
            long total = 0;
            for (Future<Long> count : counts) {
                total += count.get();
            }
            double seconds = (System.nanoTime() - began) / 1e9;
            return total / seconds;
        } finally {
            executor.shutdownNow();
        }
    }
}
