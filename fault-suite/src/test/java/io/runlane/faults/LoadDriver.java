package io.runlane.faults;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Drives a scenario's load through the instances' HTTP trigger endpoint: {@code keys} keys spread evenly over the
 * load window, each triggered three times (same key, same payload) within a few seconds, on instances chosen by the
 * seed. A trigger that gets no 2xx answer is retried on the next instance until it gets one or the give-up time
 * passes; only answered triggers are promises the suite holds Runlane to. The {@link Workload} sets each key's
 * planned work and whether its handler works in a transactional step.
 */
final class LoadDriver implements TriggerLoad {

    static final int TRIGGERS_PER_KEY = 3;

    private static final Duration RETRY_PAUSE = Duration.ofMillis(300);

    /** The exception class an error answer of Spring Boot names, with {@code spring.web.error.include-exception}. */
    private static final Pattern EXCEPTION = Pattern.compile("\"exception\":\"(?:[\\w$]+\\.)*([\\w$]+)\"");

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final List<FaultNode> nodes;

    private final String scenario;

    private final boolean transactional;

    private final boolean failFirstLife;

    private final List<Planned> plan = new ArrayList<>();

    private final Map<String, List<Ack>> acks = new ConcurrentHashMap<>();

    private final AtomicInteger unanswered = new AtomicInteger();

    private final AtomicInteger retries = new AtomicInteger();

    private final Queue<Long> answerTimes = new ConcurrentLinkedQueue<>();

    private final Map<String, AtomicInteger> refusals = new ConcurrentSkipListMap<>();

    /** One trigger of the plan: when (from the start of the window), which key, first instance to ask. */
    private record Planned(long atMillis, String key, long workMillis, int node) {}

    /** A trigger that got a 2xx answer: the run it names must exist. */
    record Ack(String key, UUID runId, String outcome, String instance) {}

    LoadDriver(List<FaultNode> nodes, String scenario, Workload workload, Random random, int keys, Duration window) {
        this.nodes = nodes;
        this.scenario = scenario;
        this.transactional = workload == Workload.TRANSACTIONAL_STEPS;
        this.failFirstLife = workload == Workload.FAILING_FIRST_LIFE;
        long windowMillis = window.toMillis();
        for (int k = 0; k < keys; k++) {
            String key = "k" + k;
            long work = workload.workMillis(k, random);
            long first = k * windowMillis / keys;
            for (int t = 0; t < TRIGGERS_PER_KEY; t++) {
                long at = t == 0 ? first : first + random.nextInt(3000);
                plan.add(new Planned(at, key, work, random.nextInt(nodes.size())));
            }
        }
    }

    int keys() {
        return plan.size() / TRIGGERS_PER_KEY;
    }

    @Override
    public void run(Duration giveUp) throws InterruptedException {
        PlannedTriggers.run(
                "load-" + scenario,
                24,
                plan,
                Planned::atMillis,
                giveUp,
                (scheduler, trigger, giveUpAt, done) -> send(scheduler, trigger, trigger.node(), giveUpAt, done));
    }

    Map<String, List<Ack>> acks() {
        return acks;
    }

    @Override
    public int answered() {
        return acks.values().stream().mapToInt(List::size).sum();
    }

    @Override
    public int unanswered() {
        return unanswered.get();
    }

    @Override
    public int retries() {
        return retries.get();
    }

    /** When each 2xx answer arrived ({@link System#nanoTime()}), in no particular order. */
    List<Long> answerTimes() {
        return List.copyOf(answerTimes);
    }

    /**
     * The tries that got no 2xx answer, counted by what they got: the status and the exception the instance names
     * (when it includes exceptions in its error answers), or no answer at all.
     */
    Map<String, Integer> refusals() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        refusals.forEach((what, count) -> counts.put(what, count.get()));
        return counts;
    }

    private void send(
            ScheduledExecutorService scheduler, Planned trigger, int node, long giveUpAt, CountDownLatch done) {
        FaultNode target = nodes.get(node % nodes.size());
        String query = "scenario=" + encode(scenario) + "&key=" + encode(trigger.key()) + "&workMillis="
                + trigger.workMillis() + "&transactional=" + transactional + "&failFirstLife=" + failFirstLife;
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(target.base() + "/faults/trigger?" + query))
                            .timeout(Duration.ofSeconds(5))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2) {
                answerTimes.add(System.nanoTime());
                String[] answer = response.body().trim().split(" ");
                acks.computeIfAbsent(trigger.key(), key -> new CopyOnWriteArrayList<>())
                        .add(new Ack(trigger.key(), UUID.fromString(answer[0]), answer[1], target.instance()));
                done.countDown();
                return;
            }
            Matcher exception = EXCEPTION.matcher(response.body());
            refused("HTTP " + response.statusCode() + (exception.find() ? " " + exception.group(1) : ""));
        } catch (IOException ex) {
            // No answer: the instance is down, partitioned or slow; the trigger may or may not have been stored.
            refused("no answer (" + ex.getClass().getSimpleName() + ")");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            done.countDown();
            return;
        }
        if (System.nanoTime() > giveUpAt) {
            unanswered.incrementAndGet();
            done.countDown();
            return;
        }
        retries.incrementAndGet();
        scheduler.schedule(
                () -> send(scheduler, trigger, node + 1, giveUpAt, done),
                RETRY_PAUSE.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void refused(String what) {
        refusals.computeIfAbsent(what, key -> new AtomicInteger()).incrementAndGet();
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
