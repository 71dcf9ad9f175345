package io.runlane.testsupport;

import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A data source whose next claim answer comes late, as if a network partition held it (S-EX-30). After {@link
 * #holdNextClaim()}, the next claim statement that runs in auto-commit and claims at least one run executes and
 * commits as usual (the runs are {@code RUNNING}, their leases ticking on the database clock), but its answer reaches
 * the worker only at {@link #release()}. Every other statement passes untouched.
 */
public final class LateClaimAnswers extends DelegatingDataSource implements AutoCloseable {

    private final AtomicBoolean armed = new AtomicBoolean();

    private final CountDownLatch held = new CountDownLatch(1);

    private final CountDownLatch released = new CountDownLatch(1);

    public LateClaimAnswers(DataSource target) {
        super(target);
    }

    /** Holds the answer of the next claim that claims runs. */
    public void holdNextClaim() {
        armed.set(true);
    }

    /** Waits until a claim's answer is held: its runs are claimed in the database, the worker does not know yet. */
    public void awaitHeld() {
        await().atMost(Duration.ofSeconds(30)).until(() -> held.getCount() == 0);
    }

    /** Delivers the held answer. */
    public void release() {
        released.countDown();
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection(obtainTargetDataSource().getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return connection(obtainTargetDataSource().getConnection(username, password));
    }

    private Connection connection(Connection target) {
        return proxy(Connection.class, target, (proxy, method, args) -> {
            Object result = invoke(method, target, args);
            if (method.getName().equals("prepareStatement")
                    && args[0] instanceof String sql
                    && sql.contains("'CLAIMED'")
                    && sql.contains("SKIP LOCKED")) {
                PreparedStatement statement = (PreparedStatement) result;
                return proxy(PreparedStatement.class, statement, (p, m, a) -> {
                    Object answer = invoke(m, statement, a);
                    if (m.getName().equals("executeQuery") && answer instanceof ResultSet rs) {
                        holdIfArmed(target, rs);
                    }
                    return answer;
                });
            }
            return result;
        });
    }

    private void holdIfArmed(Connection connection, ResultSet rs) throws SQLException, InterruptedException {
        if (connection.getAutoCommit() && rs.isBeforeFirst() && armed.compareAndSet(true, false)) {
            held.countDown();
            if (!released.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("The held claim answer was never released");
            }
        }
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    private static <T> T proxy(Class<T> type, T target, InvocationHandler handler) {
        InvocationHandler identity =
                (proxy, method, args) -> method.getName().equals("equals") && method.getParameterCount() == 1
                        ? proxy == args[0]
                        : handler.invoke(proxy, method, args);
        return type.cast(
                Proxy.newProxyInstance(LateClaimAnswers.class.getClassLoader(), new Class<?>[] {type}, identity));
    }
}
