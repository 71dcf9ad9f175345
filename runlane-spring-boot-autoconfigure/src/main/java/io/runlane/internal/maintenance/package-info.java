/**
 * Runlane's engine: Periodic maintenance (S-EX-7, S-CA-5, S-OP-3, S-OP-4): lease rescue, the cancellation grace, pruning with its statements and pacing. Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.maintenance;

import org.jspecify.annotations.NullMarked;
