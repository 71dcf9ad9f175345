/**
 * Runlane's engine. Not API: everything under {@code io.runlane.internal} may change in any release; applications
 * use {@code io.runlane} only.
 */
@NullMarked
package io.runlane.internal;

import org.jspecify.annotations.NullMarked;
