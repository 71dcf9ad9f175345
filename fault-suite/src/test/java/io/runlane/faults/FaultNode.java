package io.runlane.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One instance of the cluster: a separate JVM running {@link FaultNodeApplication} with its database link through
 * its own {@link TcpProxy} (a failover cluster's instances have none: they reach the replicated pair directly). Each
 * start is a new generation with its own instance name ({@code node-2.g3}), so the effect log tells which process
 * ran an attempt and the suite knows which processes it killed. The process's output goes to {@code node-N.log}
 * under the suite's directory.
 */
final class FaultNode implements AutoCloseable {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;

    private final int httpPort;

    private final @Nullable TcpProxy proxy;

    private final List<String> settings;

    private final Path log;

    private @Nullable Process process;

    private int generation;

    private @Nullable ClockSkew skew;

    FaultNode(String name, int httpPort, @Nullable TcpProxy proxy, List<String> settings, Path log) {
        this.name = name;
        this.httpPort = httpPort;
        this.proxy = proxy;
        this.settings = settings;
        this.log = log;
    }

    String name() {
        return name;
    }

    TcpProxy proxy() {
        if (proxy == null) {
            throw new IllegalStateException(name + " reaches its database without a proxy");
        }
        return proxy;
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + httpPort);
    }

    /** The instance name of the running generation, as the effect log records it. */
    synchronized String instance() {
        return name + ".g" + generation;
    }

    synchronized @Nullable ClockSkew skew() {
        return skew;
    }

    synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Starts a new generation of this instance; with a skew, its clock runs that far off (libfaketime). */
    synchronized void start(@Nullable ClockSkew skew) throws IOException {
        if (isAlive()) {
            throw new IllegalStateException(name + " is running");
        }
        this.skew = skew;
        generation++;
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xss512k",
                "-Duser.timezone=Asia/Kathmandu",
                "-cp",
                classPath(),
                FaultNodeApplication.class.getName(),
                "--server.port=" + httpPort,
                "--faults.instance=" + instance()));
        command.addAll(settings);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Map<String, String> environment = builder.environment();
        environment.put("TZ", "America/St_Johns");
        if (skew != null) {
            environment.putAll(skew.environment());
        }
        Files.writeString(
                log,
                "\n==== start " + instance() + (skew == null ? "" : " with clock " + skew) + " ====\n",
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        process = builder.start();
    }

    /** Waits until the instance answers as ready; fails if the process dies or the time runs out. */
    void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!isAlive()) {
                throw new ExitedWhileStarting(instance() + " exited while starting; see " + log);
            }
            try {
                HttpResponse<String> response = HTTP.send(
                        HttpRequest.newBuilder(base().resolve("/faults/ready"))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException ex) {
                // Not listening yet.
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(instance() + " did not become ready within " + timeout + "; see " + log);
    }

    /** {@code kill -9}: the process ends at once, attempts in flight and all. */
    void kill() throws InterruptedException {
        Process running = process();
        if (running != null) {
            running.destroyForcibly();
            running.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Waits up to {@code timeout} for the process to end by itself; its exit code, or {@code null} if it still runs
     * (or never ran).
     */
    @Nullable
    Integer awaitExit(Duration timeout) throws InterruptedException {
        Process running = process();
        if (running == null || !running.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return null;
        }
        return running.exitValue();
    }

    /**
     * {@code SIGTERM}: a graceful shutdown (S-EX-8). Waits for the process to end; if it has not after {@code
     * timeout}, kills it and says so.
     */
    boolean terminate(Duration timeout) throws InterruptedException {
        Process running = process();
        if (running == null) {
            return true;
        }
        running.destroy();
        if (running.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        running.destroyForcibly();
        running.waitFor(30, TimeUnit.SECONDS);
        return false;
    }

    /** Writes a marker line into the instance's log; a node that does not answer is skipped. */
    void mark(String text) {
        try {
            HTTP.send(
                    HttpRequest.newBuilder(base().resolve("/faults/mark?text=" + text.replace(' ', '+')))
                            .timeout(Duration.ofSeconds(2))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException ex) {
            // A marker is only a reading aid.
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Sends {@code method} to one of the instance's suite endpoints and answers the body of a 2xx answer; {@code null}
     * when the instance does not answer or refuses.
     */
    @Nullable
    String call(String method, String pathAndQuery) throws InterruptedException {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(base().resolve(pathAndQuery))
                            .timeout(Duration.ofSeconds(5))
                            .method(method, HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() / 100 == 2 ? response.body() : null;
        } catch (IOException ex) {
            return null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /** The process ended before it was ready, typically because the database could not be reached then. */
    static final class ExitedWhileStarting extends IllegalStateException {
        ExitedWhileStarting(String message) {
            super(message);
        }
    }

    private synchronized @Nullable Process process() {
        return process;
    }

    /**
     * The test class path. Failsafe starts tests with a manifest-only jar, so {@code java.class.path} may name just
     * that jar; the real entries are in {@code surefire.test.class.path}.
     */
    private static String classPath() {
        String path = System.getProperty("surefire.test.class.path");
        if (path == null || path.isBlank()) {
            path = System.getProperty("java.class.path");
        }
        return path;
    }
}
