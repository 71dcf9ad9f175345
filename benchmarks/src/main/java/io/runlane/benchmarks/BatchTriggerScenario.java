package io.runlane.benchmarks;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.springframework.jdbc.core.ConnectionCallback;

/**
 * Batch triggers of 1,000 new runs per call ({@link RunlaneTemplate#triggerAll}), each with an idempotency key,
 * against a plain JDBC batch insert of 1,000 rows ({@code addBatch}/{@code executeBatch}) with one commit.
 */
final class BatchTriggerScenario implements Scenario {

    private static final int BATCH = 1_000;

    private static final int THREADS = 1;

    @Override
    public String name() {
        return "batch trigger";
    }

    @Override
    public void run(BenchmarkContext context, Report report) throws Exception {
        context.resetRuns();
        RunlaneTemplate runlane = context.engine().template();
        String prefix = "batch-" + UUID.randomUUID() + "-";
        String insert =
                "INSERT INTO " + BenchmarkContext.SCHEMA + ".baseline (id, payload) VALUES (?, cast(? AS jsonb))";
        Rounds[] calls = Measurement.compare(
                context.options(),
                THREADS,
                (worker, sequence) -> runlane.triggerAll(requests(prefix + sequence + "-")),
                (worker, sequence) -> context.jdbc().execute((ConnectionCallback<Void>) connection -> {
                    insertBatch(connection, insert, prefix + sequence + "-");
                    return null;
                }));
        Rounds runlaneRuns = calls[0].map(perSecond -> perSecond * BATCH);
        Rounds baselineRuns = calls[1].map(perSecond -> perSecond * BATCH);
        report.compare(
                "batch trigger, 1,000 new runs with idempotency keys per call (runs/s)",
                THREADS,
                runlaneRuns,
                "JDBC batch insert of 1,000 rows + one commit",
                baselineRuns);
        context.progress(
                "batch trigger: Runlane %s runs/s, JDBC batch insert %s rows/s",
                runlaneRuns.format(0), baselineRuns.format(0));
    }

    private static List<TriggerRequest> requests(String prefix) {
        return IntStream.range(0, BATCH)
                .mapToObj(
                        i -> TriggerRequest.of(BenchmarkTasks.ORDER, new BenchmarkTasks.OrderTask.Payload(prefix + i)))
                .toList();
    }

    private static void insertBatch(Connection connection, String insert, String prefix) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (PreparedStatement statement = connection.prepareStatement(insert)) {
            for (int i = 0; i < BATCH; i++) {
                statement.setObject(1, UUID.randomUUID());
                statement.setString(2, "{\"orderId\":\"" + prefix + i + "\"}");
                statement.addBatch();
            }
            statement.executeBatch();
            connection.commit();
        } catch (SQLException | RuntimeException ex) {
            connection.rollback();
            throw ex;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
