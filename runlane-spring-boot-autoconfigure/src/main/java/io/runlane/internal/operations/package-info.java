/**
 * Runlane's engine: The operator API behind {@code RunlaneTemplate#runs()} and {@code idempotencyKeys()} (S-OP, S-IK-8): rerun, retry, cancel, prune, key resets. Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.operations;

import org.jspecify.annotations.NullMarked;
