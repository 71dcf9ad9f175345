package io.runlane.internal.kernel;

import java.util.Locale;

/**
 * Where a rule id such as {@code S-IK-7} is explained: {@code docs/guarantees.md}, the project's statement of every
 * rule by id. Messages that cite an id link it through here, so the location is written once.
 */
public final class Guarantees {

    /** The document stating every rule by id, relative to the project's root. */
    public static final String DOCUMENT = "docs/guarantees.md";

    private Guarantees() {}

    /** {@code see docs/guarantees.md#s-ik-7} for {@code S-IK-7}. */
    public static String link(String ruleId) {
        return "see " + DOCUMENT + "#" + ruleId.toLowerCase(Locale.ROOT);
    }
}
