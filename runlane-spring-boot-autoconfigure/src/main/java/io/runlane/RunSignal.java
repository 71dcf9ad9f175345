package io.runlane;

import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A signal sent to a run (S-SG-5).
 *
 * @param id the signal's id
 * @param name the signal's name, which a handler awaits ({@link RunContext#awaitSignal})
 * @param payloadJson the payload as JSON text
 * @param sentAt when it was stored (database clock); signals of one name are consumed in this order
 * @param consumedAt when a handler consumed it, or {@code null} while it waits in the mailbox
 * @param deduplicationKey the key it was sent with, if any (S-SG-2)
 */
public record RunSignal(
        UUID id,
        String name,
        @JsonRawValue String payloadJson,
        Instant sentAt,
        @Nullable Instant consumedAt,
        @Nullable String deduplicationKey) {}
