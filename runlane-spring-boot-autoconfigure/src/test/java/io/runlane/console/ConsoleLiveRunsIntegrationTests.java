package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.console.ConsoleTestApplication.Payload;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The run page's live stream over real HTTP (S-CO-26): {@code GET api/runs/{id}/live} sends the run's status and
 * {@code updatedAt} at once and again when the run changes, ends after a terminal status, answers 404 for an unknown
 * run and 503 past its bound of open streams, and frees a stream's place when it ends.
 */
@DirtiesContext
@SpringBootTest(
        classes = ConsoleTestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "runlane.console.enabled=true")
class ConsoleLiveRunsIntegrationTests {

    /** The bound of ConsoleLiveRuns.MAX_STREAMS. */
    private static final int MAX_STREAMS = 16;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        ConsoleTestApplication.properties(registry, "console_live");
    }

    @LocalServerPort
    private int port;

    @Autowired
    private RunlaneTemplate runlane;

    private final HttpClient http = HttpClient.newHttpClient();

    private final List<Stream> streams = new ArrayList<>();

    @AfterEach
    void closeStreams() {
        streams.forEach(Stream::close);
    }

    @Test
    @DisplayName("S-CO-26: the stream sends the run's state at once, an event when it changes, and ends after the"
            + " event of its terminal status")
    void anEventArrivesWhenTheRunChangesAndTheStreamEndsWhenItIsTerminal() throws Exception {
        UUID run = runlane.trigger("exports.generate", Payload.of("live")).runId();
        awaitStatus(run, RunStatus.RUNNING);

        Stream stream = open(run);
        assertThat(stream.status).isEqualTo(200);
        assertThat(stream.contentType).startsWith("text/event-stream");
        await().atMost(Duration.ofSeconds(10)).until(() -> stream.events().size() == 1);
        assertThat(stream.events().get(0)).contains("\"status\":\"RUNNING\"").contains("\"updatedAt\":\"");
        assertThat(stream.ended.get()).isFalse();

        runlane.runs().cancel(run, "live");

        await().atMost(Duration.ofSeconds(20)).until(stream.ended::get);
        assertThat(stream.events()).last().asString().contains("\"status\":\"CANCELLED\"");
        assertThat(stream.events()).hasSizeBetween(2, 3);
        assertThat(stream.lines).filteredOn(line -> line.startsWith("event:")).allMatch("event:run"::equals);

        Stream again = open(run);
        await().atMost(Duration.ofSeconds(10)).until(again.ended::get);
        assertThat(again.events()).singleElement().asString().contains("\"status\":\"CANCELLED\"");
    }

    @Test
    @DisplayName("S-CO-26: an unknown run answers 404; past its bound the stream answers 503, and an ended stream"
            + " frees its place")
    void streamsAreBoundedAndFreedWhenTheyEnd() throws Exception {
        HttpResponse<String> unknown = http.send(
                HttpRequest.newBuilder(live(UUID.randomUUID())).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("run_not_found");

        UUID parked = runlane.trigger("reports.build", Payload.of("bounded")).runId();
        List<Stream> open = new ArrayList<>();
        for (int i = 0; i < MAX_STREAMS; i++) {
            open.add(open(parked));
        }
        assertThat(open).allSatisfy(stream -> assertThat(stream.status).isEqualTo(200));
        HttpResponse<String> refused =
                http.send(HttpRequest.newBuilder(live(parked)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).contains("console_streams_exhausted");

        runlane.runs().cancel(parked, "bounded");
        await().atMost(Duration.ofSeconds(20)).until(() -> open.stream().allMatch(stream -> stream.ended.get()));

        UUID other = runlane.trigger("reports.build", Payload.of("after")).runId();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Stream stream = open(other);
            return stream.status == 200;
        });
    }

    private void awaitStatus(UUID runId, RunStatus status) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(runId).orElseThrow().status() == status);
    }

    private URI live(UUID runId) {
        return URI.create("http://localhost:" + port + "/runlane/api/runs/" + runId + "/live");
    }

    /** Opens a stream and reads its lines on a thread of its own until it ends. */
    private Stream open(UUID runId) throws Exception {
        HttpResponse<InputStream> response = http.send(
                HttpRequest.newBuilder(live(runId))
                        .header("Accept", "text/event-stream")
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        Stream stream = new Stream(response);
        streams.add(stream);
        return stream;
    }

    /** One stream's lines as they arrive, and whether it ended. */
    private static final class Stream {

        final int status;

        final String contentType;

        final List<String> lines = new CopyOnWriteArrayList<>();

        final AtomicBoolean ended = new AtomicBoolean();

        private final InputStream body;

        Stream(HttpResponse<InputStream> response) {
            this.status = response.statusCode();
            this.contentType = response.headers().firstValue("Content-Type").orElse("");
            this.body = response.body();
            Thread reader = new Thread(this::read, "live-stream-reader");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    lines.add(line);
                }
            } catch (Exception ex) {
                // closed by the test
            } finally {
                ended.set(true);
            }
        }

        /** The data of each event, in order. */
        List<String> events() {
            return lines.stream()
                    .filter(line -> line.startsWith("data:"))
                    .map(line -> line.substring("data:".length()))
                    .toList();
        }

        void close() {
            try {
                body.close();
            } catch (Exception ex) {
                // already closed
            }
        }
    }
}
