package io.runlane.internal.signal;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * What an {@code awaitSignal} step recorded (S-SG-4), so that every replay answers the same: the consumed signal's
 * id and payload, or {@code timedOut}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReceivedSignal(
        @Nullable UUID signalId,
        @Nullable JsonNode payload,
        @Nullable Boolean timedOut) {

    public static ReceivedSignal timeout() {
        return new ReceivedSignal(null, null, true);
    }

    public boolean received() {
        return signalId != null;
    }
}
