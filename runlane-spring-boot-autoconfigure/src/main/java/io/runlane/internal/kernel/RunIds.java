package io.runlane.internal.kernel;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Generates run ids as UUID version 7 (RFC 9562): a millisecond timestamp followed by random bits. Time-ordered ids
 * keep the primary key index append-mostly, which matters when millions of runs are retained. Run ids identify, they
 * do not authorise, so a fast non-cryptographic random source is enough.
 */
public final class RunIds {

    private RunIds() {}

    public static UUID next() {
        long millis = System.currentTimeMillis();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long randomHigh = random.nextLong();
        long randomLow = random.nextLong();
        long msb = (millis << 16) | 0x7000L | (randomHigh & 0x0FFFL);
        long lsb = (randomLow & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
