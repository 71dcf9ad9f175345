/**
 * Runlane's public API: declare tasks with {@link io.runlane.Task} and {@link io.runlane.TaskHandler}, trigger
 * runs with {@link io.runlane.RunlaneTemplate}, and read them back as {@link io.runlane.Run} snapshots.
 *
 * <p>Everything outside this package is internal and may change without notice.
 */
@NullMarked
package io.runlane;

import org.jspecify.annotations.NullMarked;
