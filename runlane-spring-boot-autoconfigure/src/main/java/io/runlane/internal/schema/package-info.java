/** Runlane's engine, schema part. Not API: may change in any release. */
@NullMarked
package io.runlane.internal.schema;

import org.jspecify.annotations.NullMarked;
