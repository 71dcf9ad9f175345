/**
 * Runlane's engine: The read models the operator API, the actuator and the console share: run look-ups, listing with keyset paging (S-OP-1), queue statistics (S-MO-1..3) and recent activity (S-CO-1). Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.query;

import org.jspecify.annotations.NullMarked;
