/** Runlane's engine, worker part. Not API: may change in any release. */
@NullMarked
package io.runlane.internal.worker;

import org.jspecify.annotations.NullMarked;
