/** Runlane's engine, maintenance part. Not API: may change in any release. */
@NullMarked
package io.runlane.internal.maintenance;

import org.jspecify.annotations.NullMarked;
