package io.runlane.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an operation from several threads for a fixed time and reports operations per second. Rounds of the subject
 * and its baseline alternate, so drift of the machine affects both alike. Operations that are still running when the
 * time is up finish and count, and the elapsed time includes them.
 */
final class Measurement {

    /** One operation; {@code worker} is the calling thread's index and {@code sequence} is unique in the run. */
    @FunctionalInterface
    interface Operation {
        void run(int worker, long sequence) throws Exception;
    }

    private static long sequenceBase;

    private Measurement() {}

    /** Returns the subject's and the baseline's rounds (operations per second), after a warm-up of each. */
    static Rounds[] compare(BenchmarkOptions options, int threads, Operation subject, Operation baseline)
            throws Exception {
        return compareAll(options, threads, List.of(subject, baseline)).toArray(Rounds[]::new);
    }

    /**
     * Returns the rounds of every operation (operations per second), in the given order, after a warm-up of each;
     * each round takes the operations in turn.
     */
    static List<Rounds> compareAll(BenchmarkOptions options, int threads, List<Operation> operations) throws Exception {
        for (Operation operation : operations) {
            throughput(threads, options.warmUpMillis(), operation);
        }
        List<List<Double>> rounds = new ArrayList<>();
        operations.forEach(operation -> rounds.add(new ArrayList<>()));
        for (int round = 0; round < options.rounds(); round++) {
            for (int i = 0; i < operations.size(); i++) {
                rounds.get(i).add(throughput(threads, options.roundMillis(), operations.get(i)));
            }
        }
        return rounds.stream().map(Rounds::new).toList();
    }

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
            return total / ((System.nanoTime() - began) / 1e9);
        } finally {
            executor.shutdownNow();
        }
    }
}
