/**
 * Runlane's engine: Claiming and executing runs (S-EX): the worker loop and its threads, claims, leases and heartbeats, attempt timeouts, retries and every statement that ends an attempt. Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.worker;

import org.jspecify.annotations.NullMarked;
