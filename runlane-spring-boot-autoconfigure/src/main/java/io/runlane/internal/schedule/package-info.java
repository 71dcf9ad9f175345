/**
 * Runlane's engine, schedules part (S-SC): recurrences, validation, the schedules table and the firer. Not API: may
 * change in any release.
 */
@NullMarked
package io.runlane.internal.schedule;

import org.jspecify.annotations.NullMarked;
