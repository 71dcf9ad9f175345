/** Runlane's optional Spring MVC integration: its exceptions as RFC 9457 problem details. */
@NullMarked
package io.runlane.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
