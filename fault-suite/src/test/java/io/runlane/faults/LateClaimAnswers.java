package io.runlane.faults;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.stereotype.Component;

/**
 * Makes one claim's answer reach the instance late, as a network partition that healed would (the fault suite's
 * {@code late-claim-answers} scenario, S-EX-30). The application's data source is wrapped; once {@linkplain #arm
 * armed}, the next claim statement (or trigger statement that stores its run claimed, S-EX-36) that runs in auto-commit
 * and claims a run with at least the given planned work
 * executes and commits as usual, so its runs are {@code RUNNING} under leases that run out on the database clock,
 * but its answer is held back from the worker, after its rows were read and before the worker sees any of them, until
 * the suite {@linkplain #release releases} it or the hold's time is up. A long run is asked for so that its next
 * attempt elsewhere is still running when the answer arrives. Every other statement passes untouched, so the
 * instance's heartbeats, completions and triggers go on meanwhile.
 */
@Component
class LateClaimAnswers implements BeanPostProcessor {

    private static final Logger logger = LoggerFactory.getLogger(LateClaimAnswers.class);

    private static final Pattern WORK = Pattern.compile("\"workMillis\"\\s*:\\s*(\\d+)");

    /**
     * The hold of one armed claim: caught once a claim's answer is held, released by the suite or after {@code
     * longest}; only a claim of a run planned to work at least {@code minWorkMillis} is held.
     */
    private record Hold(Duration longest, long minWorkMillis, CountDownLatch caught, CountDownLatch released) {}

    private volatile @Nullable Hold hold;

    private volatile boolean holding;

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof javax.sql.DataSource dataSource && !(bean instanceof Wrapped)) {
            return new Wrapped(dataSource);
        }
        return bean;
    }

    /** Holds the answer of the next claim that claims a run planned to work {@code minWorkMillis}, at most {@code longest}. */
    void arm(Duration longest, long minWorkMillis) {
        hold = new Hold(longest, minWorkMillis, new CountDownLatch(1), new CountDownLatch(1));
    }

    /** {@code idle}, {@code armed} (waiting for a claim that claims runs), {@code holding} or {@code released}. */
    String state() {
        Hold current = hold;
        if (current == null) {
            return "idle";
        }
        if (current.caught().getCount() > 0) {
            return "armed";
        }
        return holding ? "holding" : "released";
    }

    /** Delivers the held answer, or disarms a hold that caught nothing. */
    void release() {
        Hold current = hold;
        hold = null;
        if (current != null) {
            current.released().countDown();
        }
    }

    /** The armed hold, if a claim answered on {@code connection} may be held. */
    private @Nullable Hold armedFor(Connection connection) throws SQLException {
        Hold current = hold;
        return current != null && current.caught().getCount() > 0 && connection.getAutoCommit() ? current : null;
    }

    /** Holds the claim's answer once its rows are read, if one of them was a long run and the hold is still free. */
    private void holdAnswer(Hold current) throws InterruptedException {
        synchronized (current) {
            if (current.caught().getCount() == 0 || hold != current) {
                return;
            }
            holding = true;
            current.caught().countDown();
        }
        logger.info(
                "Holding the answer of a claim for up to {} ms",
                current.longest().toMillis());
        try {
            current.released().await(current.longest().toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            holding = false;
        }
        logger.info("Delivering the held claim answer");
    }

    /** The claim's rows, watched for a long run; the answer is held when the worker reaches their end. */
    private ResultSet heldAtTheEnd(ResultSet rows, Hold current) {
        AtomicBoolean longRun = new AtomicBoolean();
        return proxy(ResultSet.class, rows, (proxy, method, args) -> {
            Object result = invoke(method, rows, args);
            if (method.getName().equals("getString") && "payload".equals(args[0]) && result instanceof String json) {
                Matcher work = WORK.matcher(json);
                if (work.find() && Long.parseLong(work.group(1)) >= current.minWorkMillis()) {
                    longRun.set(true);
                }
            } else if (method.getName().equals("next") && Boolean.FALSE.equals(result) && longRun.get()) {
                holdAnswer(current);
            }
            return result;
        });
    }

    /**
     * A worker's claim statement, or a trigger's statement that stores its run claimed by the local worker (S-EX-36),
     * whose answer a held claim is just as much.
     */
    private static boolean isClaim(String sql) {
        return sql.contains("'CLAIMED'") && (sql.contains("SKIP LOCKED") || sql.contains("lane.free"));
    }

    /** The application's data source with claim statements watched. */
    private final class Wrapped extends DelegatingDataSource {

        Wrapped(javax.sql.DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            return watched(obtainTargetDataSource().getConnection());
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return watched(obtainTargetDataSource().getConnection(username, password));
        }

        private Connection watched(Connection target) {
            return proxy(Connection.class, target, (proxy, method, args) -> {
                Object result = invoke(method, target, args);
                if (method.getName().equals("prepareStatement") && args[0] instanceof String sql && isClaim(sql)) {
                    PreparedStatement statement = (PreparedStatement) result;
                    return proxy(PreparedStatement.class, statement, (p, m, a) -> {
                        Object answer = invoke(m, statement, a);
                        if (m.getName().equals("executeQuery") && answer instanceof ResultSet rows) {
                            Hold current = armedFor(target);
                            return current == null ? rows : heldAtTheEnd(rows, current);
                        }
                        return answer;
                    });
                }
                return result;
            });
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
