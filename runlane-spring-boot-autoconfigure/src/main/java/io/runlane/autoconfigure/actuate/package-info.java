/**
 * Actuator support for Runlane: the {@code runlane} endpoint, the {@code runlane} health indicator and Micrometer
 * meters, each with its own auto-configuration that backs off when its Spring Boot module is absent.
 */
@NullMarked
package io.runlane.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
