package io.runlane.internal.registry;

import java.util.List;

/** Checks a payload's constraints; returns every violation as {@code property: message}, empty when valid. */
@FunctionalInterface
public interface PayloadValidator {

    /** A validator that accepts everything, for applications without Bean Validation. */
    PayloadValidator NONE = payload -> List.of();

    List<String> violations(Object payload);
}
