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
 * against a plain JDBC batch insert of 1,000 rows ({@code addBatch}/{@code executeBatch}) with one commit, and against
 * the same batch of the rows a trigger writes into a table shaped and indexed like Runlane's runs table: what storing
 * a run as a row of that table costs before any of Runlane's own work.
 */
final class BatchTriggerScenario implements Scenario {

    private static final int BATCH = 1_000;

    private static final int THREADS = 1;

    private static final String SHAPED = BenchmarkContext.SCHEMA + ".runs_shaped";

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
        // The floor of this design: the same rows, with the columns a trigger writes, into a table shaped and indexed
        // like the runs table (its partial unique key indexes and claim index included), in one batch and one commit.
        context.jdbc().execute("DROP TABLE IF EXISTS " + SHAPED);
        context.jdbc().execute("CREATE TABLE " + SHAPED + " (LIKE " + BenchmarkContext.SCHEMA + ".runs INCLUDING ALL)");
        List<Rounds> calls = Measurement.compareAll(
                context.options(),
                THREADS,
                List.of(
                        (worker, sequence) -> runlane.triggerAll(requests(prefix + sequence + "-")),
                        (worker, sequence) -> context.jdbc().execute((ConnectionCallback<Void>) connection -> {
                            insertBatch(connection, insert, prefix + sequence + "-");
                            return null;
                        }),
                        (worker, sequence) -> context.jdbc().execute((ConnectionCallback<Void>) connection -> {
                            insertShapedBatch(connection, prefix + "shaped-" + sequence + "-");
                            return null;
                        })));
        Rounds runlaneRuns = calls.get(0).map(perSecond -> perSecond * BATCH);
        Rounds baselineRuns = calls.get(1).map(perSecond -> perSecond * BATCH);
        Rounds shapedRuns = calls.get(2).map(perSecond -> perSecond * BATCH);
        report.compare(
                "batch trigger, 1,000 new runs with idempotency keys per call (runs/s)",
                THREADS,
                runlaneRuns,
                "JDBC batch insert of 1,000 rows + one commit",
                baselineRuns);
        report.compare(
                "batch trigger, 1,000 new runs with idempotency keys per call (runs/s)",
                THREADS,
                runlaneRuns,
                "JDBC batch insert of 1,000 rows with a trigger's columns into a table indexed like runs + one commit",
                shapedRuns);
        report.target(
                Goal.BATCH_VS_INSERT,
                runlaneRuns.dividedBy(baselineRuns),
                ResultsWriter.format(runlaneRuns.median()) + " vs " + ResultsWriter.format(baselineRuns.median())
                        + " runs/s; against the same rows with a trigger's columns, inserted into a table indexed like"
                        + " runs: " + runlaneRuns.dividedBy(shapedRuns).format(2));
        context.progress(
                "batch trigger: Runlane %s runs/s, JDBC batch insert %s rows/s, into a table indexed like runs %s"
                        + " rows/s",
                runlaneRuns.format(0), baselineRuns.format(0), shapedRuns.format(0));
        context.jdbc().execute("DROP TABLE IF EXISTS " + SHAPED);
    }

    private static void insertShapedBatch(Connection connection, String prefix) throws SQLException {
        String insert = "INSERT INTO " + SHAPED + " (id, environment, task_id, queue, status, payload, idempotency_key,"
                + " max_attempts, run_at, created_at, updated_at, priority)"
                + " VALUES (?, 'default', ?, 'default', 'QUEUED', cast(? AS jsonb), ?, 3, statement_timestamp(),"
                + " statement_timestamp(), statement_timestamp(), 0)";
        insertRows(connection, insert, (statement, i) -> {
            statement.setObject(1, UUID.randomUUID());
            statement.setString(2, BenchmarkTasks.ORDER);
            statement.setString(3, "{\"orderId\":\"" + prefix + i + "\"}");
            statement.setString(4, prefix + i);
        });
    }

    private static List<TriggerRequest> requests(String prefix) {
        return IntStream.range(0, BATCH)
                .mapToObj(
                        i -> TriggerRequest.of(BenchmarkTasks.ORDER, new BenchmarkTasks.OrderTask.Payload(prefix + i)))
                .toList();
    }

    private static void insertBatch(Connection connection, String insert, String prefix) throws SQLException {
        insertRows(connection, insert, (statement, i) -> {
            statement.setObject(1, UUID.randomUUID());
            statement.setString(2, "{\"orderId\":\"" + prefix + i + "\"}");
        });
    }

    /** Sets the parameters of the {@code i}-th row of a batch. */
    @FunctionalInterface
    private interface Row {
        void set(PreparedStatement statement, int i) throws SQLException;
    }

    /** {@link #BATCH} rows of {@code insert} as one JDBC batch and one commit. */
    private static void insertRows(Connection connection, String insert, Row row) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (PreparedStatement statement = connection.prepareStatement(insert)) {
            for (int i = 0; i < BATCH; i++) {
                row.set(statement, i);
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
