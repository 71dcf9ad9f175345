package io.runlane.internal.result;

import io.runlane.RunlaneException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Converts results (of tasks and of steps) to and from stored JSON with the application's {@link JsonMapper}, the
 * one payloads use, so its modules and naming rules apply alike (S-ID-4, S-RS-1, S-ST-1).
 */
public final class ResultCodec {

    /** The default of {@code runlane.results.max-size}: 1 MB of JSON (S-RS-5). */
    public static final long DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

    private final JsonMapper mapper;

    private final long maxResultBytes;

    public ResultCodec(JsonMapper mapper, long maxResultBytes) {
        if (maxResultBytes < 1) {
            throw new io.runlane.ConfigurationInvalidException(
                    "runlane.results.max-size", "must be positive, but was " + maxResultBytes + " bytes");
        }
        this.mapper = mapper;
        this.maxResultBytes = maxResultBytes;
    }

    /** {@code runlane.results.max-size} in bytes. */
    public long maxResultBytes() {
        return maxResultBytes;
    }

    public JsonMapper mapper() {
        return mapper;
    }

    /** A step's result as JSON; a value Jackson cannot write fails the step like any exception from it. */
    public String write(@Nullable Object value) {
        return mapper.writeValueAsString(value);
    }

    /**
     * A task's result as JSON, checked against {@code runlane.results.max-size} (S-RS-5).
     *
     * @throws ResultTooLargeException when it is larger
     */
    public String writeTaskResult(@Nullable Object value) {
        String json = mapper.writeValueAsString(value);
        if ((long) json.length() * 3 > maxResultBytes) {
            long bytes = json.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > maxResultBytes) {
                throw new ResultTooLargeException(bytes, maxResultBytes);
            }
        }
        return json;
    }

    /**
     * Reads stored JSON as {@code type}; {@code null} JSON (or none) is {@code null}.
     *
     * @throws JacksonException when it does not convert
     */
    public <R> @Nullable R read(@Nullable String json, Class<R> type) {
        if (json == null) {
            return null;
        }
        return mapper.readValue(json, type);
    }

    /** Reads a run's stored result for a caller, naming the run when it does not convert. */
    public <R> @Nullable R readRunResult(java.util.UUID runId, @Nullable String json, Class<R> type) {
        try {
            return read(json, type);
        } catch (JacksonException ex) {
            throw new RunlaneException(
                    "result_incompatible",
                    "The result of run " + runId + " does not convert to " + type.getName() + ": "
                            + ex.getOriginalMessage(),
                    ex);
        }
    }
}
