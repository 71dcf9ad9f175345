/** Runlane's engine, durable waits: parking a run as WAITING and waking it (S-ST-7, S-RS-4). Not API: may change in any release. */
@NullMarked
package io.runlane.internal.wait;

import org.jspecify.annotations.NullMarked;
