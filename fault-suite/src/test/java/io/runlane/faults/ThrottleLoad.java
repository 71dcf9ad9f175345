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
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The throttled load of the {@code clock-skew} scenario, beside its main load: {@link #KEYS} throttle keys of {@link
 * ThrottleTask}, each triggered {@link #TRIGGERS_PER_SECOND} times a second over the load window (more than its
 * {@link ThrottleTask#LIMIT} starts per period), on instances chosen by the seed, the skewed one included. Every
 * trigger is a run of its own; one without a 2xx answer is retried on the next instance after 300 ms with the same
 * number, which its idempotency key turns into the same run. So each key's backlog grows while the load lasts and its
 * runs start at the throttle's limit, the window's edges being exercised at every start.
 */
final class ThrottleLoad implements TriggerLoad {

    /** A few keys, each with a backlog. */
    static final int KEYS = 3;

    /** Per key: half again as many as the throttle lets start. */
    static final int TRIGGERS_PER_SECOND = ThrottleTask.LIMIT * 3 / 2;

    private static final Duration RETRY_PAUSE = Duration.ofMillis(300);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final List<FaultNode> nodes;

    private final String scenario;

    private final List<Planned> plan = new ArrayList<>();

    private final List<Answer> answers = new CopyOnWriteArrayList<>();

    private final AtomicInteger unanswered = new AtomicInteger();

    private final AtomicInteger retries = new AtomicInteger();

    private record Planned(long atMillis, String key, long seq, long workMillis, int node) {}

    /** A trigger that got a 2xx answer: the run it names must exist and succeed. */
    record Answer(String key, long seq, UUID runId, String outcome, String instance) {}

    ThrottleLoad(List<FaultNode> nodes, String scenario, Random random, Duration window) {
        this.nodes = nodes;
        this.scenario = scenario;
        long perKey = TRIGGERS_PER_SECOND * Math.max(1, window.toSeconds());
        long spacing = window.toMillis() / perKey;
        for (int k = 0; k < KEYS; k++) {
            for (long seq = 1; seq <= perKey; seq++) {
                plan.add(new Planned(
                        (seq - 1) * spacing + random.nextLong(spacing),
                        "t" + k,
                        seq,
                        20 + random.nextInt(80),
                        random.nextInt(nodes.size())));
            }
        }
    }

    /** How many triggers the plan has. */
    int planned() {
        return plan.size();
    }

    @Override
    public void run(Duration giveUp) throws InterruptedException {
        PlannedTriggers.run(
                "throttle-load-" + scenario,
                KEYS * 2,
                plan,
                Planned::atMillis,
                giveUp,
                (scheduler, trigger, giveUpAt, done) -> send(scheduler, trigger, trigger.node(), giveUpAt, done));
    }

    /** Every trigger that got a 2xx answer. */
    List<Answer> answers() {
        return answers;
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

    private void send(
            ScheduledExecutorService scheduler, Planned trigger, int node, long giveUpAt, CountDownLatch done) {
        FaultNode target = nodes.get(node % nodes.size());
        String query = "scenario=" + encode(scenario) + "&key=" + encode(trigger.key()) + "&seq=" + trigger.seq()
                + "&workMillis=" + trigger.workMillis();
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(target.base() + "/faults/throttle?" + query))
                            .timeout(Duration.ofSeconds(5))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2) {
                String[] answer = response.body().trim().split(" ");
                answers.add(new Answer(
                        trigger.key(), trigger.seq(), UUID.fromString(answer[0]), answer[1], target.instance()));
                done.countDown();
                return;
            }
        } catch (IOException ex) {
            // No answer: the trigger may or may not have been stored; its retry returns the run if it was.
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

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
