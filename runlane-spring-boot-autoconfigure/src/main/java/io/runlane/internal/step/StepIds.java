package io.runlane.internal.step;

import io.runlane.internal.kernel.KeyRules;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Derives a step's id from run id, name and occurrence (S-ST-2): {@code <runId>.<name>.<occurrence>}, or with the
 * name replaced by the hex of its SHA-256 (first 128 bits) when that would exceed {@value KeyRules#MAX_LENGTH}
 * characters. The run id makes it differ in every other run; name and occurrence make it the same in every attempt.
 * Names are valid keys (S-ID-1), so the id is one too: no {@code :}, no control characters, no outer whitespace.
 */
public final class StepIds {

    private StepIds() {}

    public static String stepId(UUID runId, String name, int occurrence) {
        String id = runId + "." + name + "." + occurrence;
        if (id.codePointCount(0, id.length()) <= KeyRules.MAX_LENGTH) {
            return id;
        }
        return runId + "." + hash(name) + "." + occurrence;
    }

    private static String hash(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is always available", ex);
        }
    }
}
