package io.runlane.internal.trigger;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Generates run ids as UUID version 7 (RFC 9562): a millisecond timestamp followed by random bits. Time-ordered ids
 * keep the primary key index append-mostly, which matters when millions of runs are retained.
 */
public final class RunIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    private RunIds() {}

    public static UUID next() {
        long millis = System.currentTimeMillis();
        long randomHigh = RANDOM.nextLong();
        long randomLow = RANDOM.nextLong();
        long msb = (millis << 16) | 0x7000L | (randomHigh & 0x0FFFL);
        long lsb = (randomLow & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
