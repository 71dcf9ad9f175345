package io.runlane.autoconfigure.console;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.SqlTemplate;
import java.io.IOException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.servlet.function.ServerResponse.SseBuilder;

/**
 * {@code GET api/runs/{id}/live} (S-CO-26): a server-sent event stream that tells the open run page when its run
 * changed, so that the page re-reads the run only then. Each stream is polled on one shared scheduler thread at the
 * run page's refresh interval with one statement: the run's row by its primary key (status, {@code updated_at}, and
 * {@code last_event_seq}, which every event, step and attempt moves) and its newest signal's sending time from the end
 * of {@code run_signals_run_idx} (a signal to a running run changes nothing else). An event {@code run} with these is
 * sent first and whenever one of them moves, a comment otherwise (which finds a client that left). The stream ends after the event of a terminal status, when the run is gone, when the client leaves or after
 * {@link #TIMEOUT} (the page's {@code EventSource} then reconnects). At most {@link #MAX_STREAMS} are open at once; past
 * that, and for an unknown run, it answers JSON errors, and the page polls as before. It stops before the web
 * server's graceful shutdown, ending every stream, so that an open page does not hold the shutdown up.
 */
final class ConsoleLiveRuns implements SmartLifecycle, AutoCloseable {

    /** How many streams this instance serves at once. */
    static final int MAX_STREAMS = 16;

    /** The run page's own refresh interval, which the page keeps when it cannot stream. */
    static final Duration INTERVAL = Duration.ofSeconds(3);

    /** How long one stream lasts before the client reconnects; bounds a stream whose client vanished silently. */
    static final Duration TIMEOUT = Duration.ofMinutes(10);

    /** S-CO-26: the run's row by its primary key and its newest signal from the end of {@code run_signals_run_idx}. */
    static final String STATE = """
            SELECT r.status, r.updated_at, r.last_event_seq,
                   (SELECT max(g.sent_at) FROM {schema}.run_signals g WHERE g.run_id = r.id) AS last_signal_at
            FROM {schema}.runs r
            WHERE r.id = :runId AND r.environment = :environment
            """;

    private final JdbcClient jdbc;

    private final String state;

    private final String environment;

    private final Duration interval;

    private final ScheduledExecutorService scheduler;

    private final AtomicInteger open = new AtomicInteger();

    private final Set<Stream> streams = ConcurrentHashMap.newKeySet();

    private volatile boolean running;

    ConsoleLiveRuns(JdbcClient jdbc, SqlTemplate sql, String environment, Duration interval) {
        this.jdbc = jdbc;
        this.state = sql.format(STATE);
        this.environment = environment;
        this.interval = interval;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "runlane-console-live");
            thread.setDaemon(true);
            return thread;
        });
    }

    ServerResponse stream(ServerRequest request) {
        UUID runId = ConsoleResponses.runId(request.pathVariable("runId"));
        Optional<RunState> first = read(runId);
        if (first.isEmpty()) {
            return ConsoleResponses.notFound("run_not_found", "No run " + runId);
        }
        if (!running) {
            return ConsoleResponses.error(
                    HttpStatus.SERVICE_UNAVAILABLE, "console_stopping", "The application is stopping");
        }
        if (open.incrementAndGet() > MAX_STREAMS) {
            open.decrementAndGet();
            return ConsoleResponses.error(
                    HttpStatus.SERVICE_UNAVAILABLE,
                    "console_streams_exhausted",
                    "The console streams " + MAX_STREAMS + " runs at once; the page refreshes by polling");
        }
        return ServerResponse.sse(sse -> new Stream(runId, sse).start(first.get()), TIMEOUT);
    }

    /** How many streams are open now. */
    int openStreams() {
        return open.get();
    }

    private Optional<RunState> read(UUID runId) {
        return jdbc.sql(state)
                .param("runId", runId)
                .param("environment", environment)
                .query((rs, row) -> {
                    Timestamp signal = rs.getTimestamp("last_signal_at");
                    return new RunState(
                            RunStatus.valueOf(rs.getString("status")),
                            rs.getTimestamp("updated_at").toInstant(),
                            rs.getLong("last_event_seq"),
                            (signal == null) ? null : signal.toInstant());
                })
                .optional();
    }

    @Override
    public void start() {
        running = true;
    }

    /** Ends every stream; a page whose stream ended reconnects to the next instance or polls. */
    @Override
    public void stop() {
        running = false;
        streams.forEach(Stream::end);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops before the web server's graceful shutdown, which would otherwise wait for the open streams. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }

    @Override
    public void close() {
        stop();
        scheduler.shutdownNow();
    }

    /** One client's stream; its ticks run on the scheduler thread, one at a time. */
    private final class Stream {

        private final UUID runId;

        private final SseBuilder sse;

        private final AtomicBoolean ended = new AtomicBoolean();

        private final AtomicReference<@Nullable ScheduledFuture<?>> ticks = new AtomicReference<>();

        private @Nullable RunState sent;

        Stream(UUID runId, SseBuilder sse) {
            this.runId = runId;
            this.sse = sse;
        }

        void start(RunState first) {
            streams.add(this);
            sse.onComplete(this::release).onTimeout(this::end).onError(error -> release());
            if (!send(first) || first.status().isTerminal()) {
                end();
                return;
            }
            try {
                ticks.set(scheduler.scheduleWithFixedDelay(
                        this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS));
            } catch (RuntimeException ex) { // the scheduler was shut down with the application
                end();
            }
            if (ended.get()) {
                cancelTicks();
            }
        }

        private void tick() {
            if (ended.get()) {
                cancelTicks();
                return;
            }
            try {
                Optional<RunState> current = read(runId);
                if (current.isEmpty()) {
                    sse.event("gone").data(new Gone(runId));
                    end();
                    return;
                }
                RunState now = current.get();
                boolean written = now.equals(sent) ? ping() : send(now);
                if (!written || now.status().isTerminal()) {
                    end();
                }
            } catch (IOException | RuntimeException ex) { // the client left, or the database did not answer
                end();
            }
        }

        private boolean send(RunState current) {
            try {
                sse.event("run").data(current);
                sent = current;
                return true;
            } catch (IOException ex) {
                return false;
            }
        }

        private boolean ping() {
            try {
                sse.comment("unchanged").send();
                return true;
            } catch (IOException ex) {
                return false;
            }
        }

        private void end() {
            cancelTicks();
            if (!ended.get()) {
                try {
                    sse.complete();
                } catch (RuntimeException ex) { // already completed by the container
                    release();
                }
            }
            release();
        }

        private void release() {
            if (ended.compareAndSet(false, true)) {
                streams.remove(this);
                open.decrementAndGet();
                cancelTicks();
            }
        }

        private void cancelTicks() {
            ScheduledFuture<?> scheduled = ticks.get();
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }
    }

    /**
     * The event {@code run}: the run's status and what moves when it or its history changes.
     *
     * @param updatedAt the run's {@code updated_at} (database clock)
     * @param lastEventSeq the sequence number of its newest event
     * @param lastSignalAt when its newest signal was sent, or {@code null} when it has none
     */
    record RunState(
            RunStatus status,
            Instant updatedAt,
            long lastEventSeq,
            @Nullable Instant lastSignalAt) {}

    /** The event {@code gone}: the run was pruned or deleted while the stream was open. */
    record Gone(UUID runId) {}
}
