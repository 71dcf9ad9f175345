/** Spring Boot auto-configuration for Runlane. The only package that depends on Spring Boot. */
@NullMarked
package io.runlane.autoconfigure;

import org.jspecify.annotations.NullMarked;
