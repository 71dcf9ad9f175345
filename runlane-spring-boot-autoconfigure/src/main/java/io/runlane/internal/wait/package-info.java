/**
 * Runlane's engine: Durable waits (S-ST-7, S-RS-4, S-SG): parking a run as WAITING and every statement that wakes a waiting run (signals, missed wake-ups). Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.wait;

import org.jspecify.annotations.NullMarked;
