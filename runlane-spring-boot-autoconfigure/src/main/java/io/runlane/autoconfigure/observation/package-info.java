/** Micrometer observations of Runlane's triggers and attempts. */
@NullMarked
package io.runlane.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
