/**
 * Runlane's engine: Task results and awaiting them (S-RS). Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.result;

import org.jspecify.annotations.NullMarked;
