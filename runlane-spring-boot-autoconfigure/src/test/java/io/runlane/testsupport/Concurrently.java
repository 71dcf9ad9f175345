package io.runlane.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Runs callers on their own threads, released together by a barrier, and collects every result or failure. */
public final class Concurrently {

    private Concurrently() {}

    /** One caller's answer: a value or the exception it threw. */
    public record Outcome<T>(T value, Throwable failure) {

        public boolean failed() {
            return failure != null;
        }
    }

    public static <T> List<Outcome<T>> run(int callers, IntFunction<Callable<T>> caller) {
        CyclicBarrier start = new CyclicBarrier(callers);
        ExecutorService executor = Executors.newFixedThreadPool(callers);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                Callable<T> call = caller.apply(i);
                futures.add(executor.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return call.call();
                }));
            }
            List<Outcome<T>> outcomes = new ArrayList<>();
            for (Future<T> future : futures) {
                try {
                    outcomes.add(new Outcome<>(future.get(120, TimeUnit.SECONDS), null));
                } catch (ExecutionException ex) {
                    outcomes.add(new Outcome<>(null, ex.getCause()));
                } catch (Exception ex) {
                    throw new AssertionError("A caller did not finish", ex);
                }
            }
            return outcomes;
        } finally {
            executor.shutdownNow();
        }
    }
}
