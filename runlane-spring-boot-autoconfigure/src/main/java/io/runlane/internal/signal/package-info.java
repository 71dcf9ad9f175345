/**
 * Runlane's engine: Signals: a mailbox per run and name, sending and consuming (S-SG). Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.signal;

import org.jspecify.annotations.NullMarked;
