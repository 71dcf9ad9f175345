package io.runlane.faults;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The load of the {@code debounce} scenario: {@link #KEYS} debounce keys of {@link DebounceTask}, each triggered in
 * bursts through the instances' {@code /faults/debounce} endpoint over the load window. Within a burst of 2 to 6
 * triggers the next comes 30 to 400 ms after the last one's answer, well inside the debounce period, so it folds
 * (S-DB-1); between bursts 0.7 to 2.5 s pass, so some bursts start after the run was claimed (a new window, S-DB-3)
 * and some race its claim (S-DB-4).
 *
 * <p>Triggers of one key go one after another, the next only once the last one was answered or gave up, and each
 * carries the key's next number ({@link DebounceTask.Payload#seq()}): the order of their commits is then the order of
 * their numbers, which tells the latest payload of a window (S-DB-2). A trigger without a 2xx answer is retried on the
 * next instance after 300 ms with the same number; such a trigger is <i>uncertain</i> (a try may have been stored), and
 * <i>late</i> when a try timed out, since the instance may then still store it after the next trigger.
 */
final class DebounceLoad implements TriggerLoad {

    /** A small set of keys, so that each key sees many bursts. */
    static final int KEYS = 8;

    private static final Duration RETRY_PAUSE = Duration.ofMillis(300);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final List<FaultNode> nodes;

    private final String scenario;

    private final List<List<Planned>> plan = new ArrayList<>();

    private final List<Answer> answers = new CopyOnWriteArrayList<>();

    private final Set<Sent> uncertain = ConcurrentHashMap.newKeySet();

    private final Set<Sent> late = ConcurrentHashMap.newKeySet();

    private final AtomicInteger unanswered = new AtomicInteger();

    private final AtomicInteger retries = new AtomicInteger();

    /** One trigger of a key's plan: how long after the last one's answer it is sent, and its payload. */
    private record Planned(String key, long seq, long pauseMillis, long workMillis, int node) {}

    /** A trigger of a key, by its number. */
    record Sent(String key, long seq) {}

    /** A trigger that got a 2xx answer: the run it names, created or folded into, must exist and run. */
    record Answer(String key, long seq, UUID runId, String outcome, String instance) {}

    DebounceLoad(List<FaultNode> nodes, String scenario, Random random, int keys, Duration window) {
        this.nodes = nodes;
        this.scenario = scenario;
        long windowMillis = window.toMillis();
        for (int k = 0; k < keys; k++) {
            String key = "k" + k;
            List<Planned> triggers = new ArrayList<>();
            long at = 0;
            long pause = random.nextInt(1000);
            long seq = 0;
            while (at + pause < windowMillis) {
                int burst = 2 + random.nextInt(5);
                for (int t = 0; t < burst; t++) {
                    at += pause;
                    triggers.add(new Planned(
                            key, ++seq, pause, Workload.DEBOUNCED.workMillis(k, random), random.nextInt(nodes.size())));
                    pause = 30 + random.nextInt(370);
                }
                pause = 700 + random.nextInt(1800);
            }
            plan.add(triggers);
        }
    }

    int keys() {
        return plan.size();
    }

    @Override
    public void run(Duration giveUp) throws InterruptedException {
        long giveUpAt = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(plan.stream()
                        .mapToLong(triggers -> triggers.stream()
                                .mapToLong(Planned::pauseMillis)
                                .sum())
                        .max()
                        .orElse(0))
                + giveUp.toNanos();
        ScheduledExecutorService scheduler = new ScheduledThreadPoolExecutor(plan.size() + 2, runnable -> {
            Thread thread = new Thread(runnable, "debounce-load-" + scenario);
            thread.setDaemon(true);
            return thread;
        });
        CountDownLatch done = new CountDownLatch(plan.size());
        try {
            for (List<Planned> triggers : plan) {
                next(scheduler, triggers, 0, giveUpAt, done);
            }
            done.await();
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** Every trigger that got a 2xx answer. */
    List<Answer> answers() {
        return answers;
    }

    /** The triggers of which a try got no 2xx answer, so that it may or may not have been stored. */
    Set<Sent> uncertain() {
        return uncertain;
    }

    /** The triggers of which a try timed out, so that it may have been stored after a later trigger of its key. */
    Set<Sent> late() {
        return late;
    }

    /** How many triggers the plan has. */
    int planned() {
        return plan.stream().mapToInt(List::size).sum();
    }

    @Override
    public int answered() {
        return answers.size();
    }

    @Override
    public int unanswered() {
        return unanswered.get();
    }

    @Override
    public int retries() {
        return retries.get();
    }

    private void next(
            ScheduledExecutorService scheduler, List<Planned> triggers, int index, long giveUpAt, CountDownLatch done) {
        if (index >= triggers.size()) {
            done.countDown();
            return;
        }
        Planned trigger = triggers.get(index);
        scheduler.schedule(
                () -> send(scheduler, triggers, index, trigger.node(), giveUpAt, done),
                trigger.pauseMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void send(
            ScheduledExecutorService scheduler,
            List<Planned> triggers,
            int index,
            int node,
            long giveUpAt,
            CountDownLatch done) {
        Planned trigger = triggers.get(index);
        FaultNode target = nodes.get(node % nodes.size());
        String query = "scenario=" + encode(scenario) + "&key=" + encode(trigger.key()) + "&seq=" + trigger.seq()
                + "&workMillis=" + trigger.workMillis();
        Sent sent = new Sent(trigger.key(), trigger.seq());
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(target.base() + "/faults/debounce?" + query))
                            .timeout(Duration.ofSeconds(5))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2) {
                String[] answer = response.body().trim().split(" ");
                answers.add(new Answer(
                        trigger.key(), trigger.seq(), UUID.fromString(answer[0]), answer[1], target.instance()));
                next(scheduler, triggers, index + 1, giveUpAt, done);
                return;
            }
        } catch (HttpTimeoutException ex) {
            // The instance may still store the trigger, after this answer and after later triggers of its key.
            late.add(sent);
        } catch (IOException ex) {
            // No answer: the instance is down or slow; the trigger may or may not have been stored.
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            done.countDown();
            return;
        }
        uncertain.add(sent);
        if (System.nanoTime() > giveUpAt) {
            unanswered.incrementAndGet();
            next(scheduler, triggers, index + 1, giveUpAt, done);
            return;
        }
        retries.incrementAndGet();
        scheduler.schedule(
                () -> send(scheduler, triggers, index, node + 1, giveUpAt, done),
                RETRY_PAUSE.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
