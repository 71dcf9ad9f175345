package io.runlane.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A schema name no other test uses ({@link TestDatabase#freshSchema}), injected into a {@code String} field or
 * parameter of a {@link RunlaneDatabaseTest}. The schema is not created: Runlane's initializer or the test does that.
 */
@Documented
@Target({ElementType.FIELD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
public @interface FreshSchema {

    /** The owner the name starts with, so that a schema left behind says which test made it. */
    String value();
}
