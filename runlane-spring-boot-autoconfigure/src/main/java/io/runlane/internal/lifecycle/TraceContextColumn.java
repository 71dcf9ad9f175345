package io.runlane.internal.lifecycle;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code runs.trace_context} column (S-MO-9): a run's propagation headers as a JSON object of strings, {@code NULL}
 * when it has none. A context larger than {@value #MAX_CHARS} characters (a tracer's baggage gone wild) is not stored:
 * the attempts then start traces of their own rather than every run carrying kilobytes. The column is Runlane's own
 * format, so it uses a plain mapper, never the application's (its naming rules must not rename the headers).
 */
public final class TraceContextColumn {

    private static final Log logger = LogFactory.getLog(TraceContextColumn.class);

    static final int MAX_CHARS = 8192;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final TypeReference<LinkedHashMap<String, String>> HEADERS = new TypeReference<>() {};

    private TraceContextColumn() {}

    /** The column's value for {@code headers}: {@code null} when there are none or they are too large. */
    public static @Nullable String encode(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        String json = JSON.writeValueAsString(headers);
        if (json.length() > MAX_CHARS) {
            logger.debug("Not storing a trace context of " + json.length() + " characters (more than " + MAX_CHARS
                    + "); the run's attempts start traces of their own");
            return null;
        }
        return json;
    }

    /** The headers a column value holds; empty for {@code NULL} or a value that is not an object of strings. */
    public static Map<String, String> decode(@Nullable String json) {
        if (json == null) {
            return Map.of();
        }
        LinkedHashMap<String, String> headers;
        try {
            headers = JSON.readValue(json, HEADERS);
        } catch (JacksonException ex) {
            logger.debug("Ignoring a stored trace context that is not an object of strings: " + json, ex);
            return Map.of();
        }
        if (headers == null) {
            return Map.of();
        }
        headers.values().removeIf(value -> value == null);
        return Collections.unmodifiableMap(headers);
    }
}
