package io.runlane.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Asks one health URL of an instance again and again, on a thread of its own, as a load balancer's or Kubernetes'
 * probe would, and keeps every answer: when it was asked, how long the answer took, and its status ({@code 200} up,
 * {@code 503} down, {@code 0} no answer within the probe's own generous time-out). A failover reads from it how
 * quickly a probe heard that the instance could not serve, and whether it ever had to wait for the answer.
 */
final class HealthProbe implements AutoCloseable {

    private static final Duration PAUSE = Duration.ofMillis(250);

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    /** One answer of the probe; times from {@link System#nanoTime()}. */
    record Answer(long askedNanos, long answeredNanos, int status) {

        long millis() {
            return Duration.ofNanos(answeredNanos - askedNanos).toMillis();
        }
    }

    private final String path;

    private final URI uri;

    private final List<Answer> answers = new CopyOnWriteArrayList<>();

    private final Thread thread;

    private volatile boolean running = true;

    private HealthProbe(String path, URI uri) {
        this.path = path;
        this.uri = uri;
        this.thread = new Thread(this::probe, "probe-" + path);
        thread.setDaemon(true);
    }

    /** Starts asking {@code path} of {@code node}. */
    static HealthProbe start(FaultNode node, String path) {
        HealthProbe probe = new HealthProbe(path, node.base().resolve(path));
        probe.thread.start();
        return probe;
    }

    String path() {
        return path;
    }

    List<Answer> answers() {
        return List.copyOf(answers);
    }

    /** The longest time an answer took, or an unanswered request waited. */
    long slowestMillis() {
        return answers.stream().mapToLong(Answer::millis).max().orElse(-1);
    }

    /** How long after {@code sinceNanos} the first request asked after it was answered {@code status}; -1 if none. */
    long firstMillis(long sinceNanos, int status) {
        return answers.stream()
                .filter(answer -> answer.askedNanos() > sinceNanos && answer.status() == status)
                .mapToLong(answer ->
                        Duration.ofNanos(answer.answeredNanos() - sinceNanos).toMillis())
                .min()
                .orElse(-1);
    }

    /**
     * Writes every answer to {@code file} as CSV: when it was asked and answered, in milliseconds after {@code
     * sinceNanos}, and its status.
     */
    void write(Path file, long sinceNanos) throws IOException {
        List<String> lines = new ArrayList<>(List.of("asked_ms,answered_ms,status"));
        for (Answer answer : answers) {
            lines.add(Duration.ofNanos(answer.askedNanos() - sinceNanos).toMillis() + ","
                    + Duration.ofNanos(answer.answeredNanos() - sinceNanos).toMillis() + "," + answer.status());
        }
        Files.write(file, lines);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(TIMEOUT.toMillis());
    }

    private void probe() {
        while (running) {
            long asked = System.nanoTime();
            int status;
            try {
                status = HTTP.send(
                                HttpRequest.newBuilder(uri).timeout(TIMEOUT).build(),
                                HttpResponse.BodyHandlers.discarding())
                        .statusCode();
            } catch (IOException ex) {
                status = 0;
            } catch (InterruptedException ex) {
                return;
            }
            answers.add(new Answer(asked, System.nanoTime(), status));
            try {
                Thread.sleep(PAUSE.toMillis());
            } catch (InterruptedException ex) {
                return;
            }
        }
    }
}
