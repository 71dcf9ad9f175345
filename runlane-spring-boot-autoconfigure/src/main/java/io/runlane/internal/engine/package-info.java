/**
 * Runlane's engine: The composition root: assembles the concerns into a running engine. Nothing else depends on it. Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.engine;

import org.jspecify.annotations.NullMarked;
