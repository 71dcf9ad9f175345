package io.runlane.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A new connection pool to the test server ({@link TestDatabase#newDataSource(int)}), injected into a
 * {@code HikariDataSource} or {@code DataSource} field or parameter of a {@link RunlaneDatabaseTest}. Each annotated
 * field or parameter gets a pool of its own, as a separate application instance would have.
 */
@Documented
@Target({ElementType.FIELD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
public @interface Pool {

    /** The pool's maximum size. */
    int size() default 4;
}
