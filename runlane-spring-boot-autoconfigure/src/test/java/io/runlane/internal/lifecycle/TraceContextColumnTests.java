package io.runlane.internal.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-MO-9: how a run's trace context is written to and read from its column. */
class TraceContextColumnTests {

    @Test
    @DisplayName("S-MO-9: headers round-trip as a JSON object; none is NULL")
    void roundTrip() {
        Map<String, String> headers = Map.of("traceparent", "00-abc-def-01", "b3", "abc-def-1");

        assertThat(TraceContextColumn.decode(TraceContextColumn.encode(headers)))
                .isEqualTo(headers);
        assertThat(TraceContextColumn.encode(Map.of())).isNull();
        assertThat(TraceContextColumn.decode(null)).isEmpty();
    }

    @Test
    @DisplayName("S-MO-9: an oversized context is not stored, and a malformed one reads as none")
    void oversizedAndMalformed() {
        assertThat(TraceContextColumn.encode(Map.of("baggage", "x".repeat(TraceContextColumn.MAX_CHARS))))
                .isNull();
        assertThat(TraceContextColumn.decode("[1, 2]")).isEmpty();
        assertThat(TraceContextColumn.decode("null")).isEmpty();
        assertThat(TraceContextColumn.decode("{\"traceparent\": null, \"b3\": \"x\"}"))
                .isEqualTo(Map.of("b3", "x"));
    }
}
