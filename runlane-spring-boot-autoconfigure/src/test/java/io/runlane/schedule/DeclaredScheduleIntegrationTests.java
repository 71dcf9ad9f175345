package io.runlane.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.CatchUpPolicy;
import io.runlane.OverlapPolicy;
import io.runlane.ScheduleDeclaredException;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInfo;
import io.runlane.ScheduleInvalidException;
import io.runlane.ScheduleOperations;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.internal.kernel.ScheduleSettings;
import io.runlane.internal.schedule.ScheduleAnnotations;
import io.runlane.internal.schedule.ScheduleDeclaration;
import io.runlane.internal.schedule.ScheduleDeclaration.Overrides;
import io.runlane.internal.schedule.Schedules;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Declared schedules (S-SC-1, S-SC-5, S-SC-8): annotation, configuration on top, start-up synchronisation. */
@RunlaneDatabaseTest
class DeclaredScheduleIntegrationTests {

    @Pool(size = 4)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    private static ScheduleOperations schedules;

    private static Schedules engineSchedules;

    @BeforeAll
    static void start(@FreshSchema("schedule_declared") String schema) {
        runlane = TestRunlane.withSchedules(
                dataSource,
                schema,
                ScheduleSettings.defaults(),
                ExecutionSettings.defaults(),
                EngineListener.NONE,
                new ScheduleTasks.Declared(),
                new ScheduleTasks.Report());
        schedules = runlane.template().schedules();
        engineSchedules = runlane.engine().schedules();
    }

    private static List<ScheduleDeclaration> declarations(Map<String, Overrides> configured) {
        return ScheduleAnnotations.merge(
                ScheduleAnnotations.read(runlane.engine().tasks()), configured);
    }

    private static Overrides cron(String cron) {
        return new Overrides(null, cron, null, null, null, null, null, null);
    }

    @Test
    @DisplayName("S-SC-1: @Schedule declarations are written with their expression, zone, payload and policy")
    void annotationsAreSynchronised() {
        engineSchedules.synchronizeDeclared(declarations(Map.of()));

        ScheduleInfo nightly = schedules.get("declared.nightly").orElseThrow();
        assertThat(nightly.declared()).isTrue();
        assertThat(nightly.taskId()).isEqualTo("schedules.declared");
        assertThat(nightly.zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(nightly.nextFireAt().atZone(ZoneId.of("Europe/Berlin")).getHour())
                .isEqualTo(3);
        ScheduleInfo frequent = schedules.get("declared.frequent").orElseThrow();
        assertThat(frequent.expression()).isEqualTo("every 30s");
        assertThat(frequent.overlap()).isEqualTo(OverlapPolicy.ALLOW);
        assertThat(frequent.catchUp()).isEqualTo(CatchUpPolicy.LATEST);
    }

    @Test
    @DisplayName("S-SC-1: a restart keeps the stored next fire time; a changed expression recomputes it")
    void restartKeepsNextFireUnlessExpressionChanged() {
        engineSchedules.synchronizeDeclared(declarations(Map.of()));
        runlane.jdbc()
                .update("UPDATE " + runlane.schema()
                        + ".schedules SET next_fire_at = now() + interval '7 minutes' WHERE id = 'declared.nightly'");
        Instant stored = schedules.get("declared.nightly").orElseThrow().nextFireAt();

        engineSchedules.synchronizeDeclared(declarations(Map.of()));
        assertThat(schedules.get("declared.nightly").orElseThrow().nextFireAt()).isEqualTo(stored);

        engineSchedules.synchronizeDeclared(declarations(Map.of("declared.nightly", cron("0 0 4 * * *"))));
        ScheduleInfo changed = schedules.get("declared.nightly").orElseThrow();
        assertThat(changed.nextFireAt()).isNotEqualTo(stored);
        assertThat(changed.nextFireAt().atZone(ZoneId.of("Europe/Berlin")).getHour())
                .as("configuration wins over the annotation, and keeps its zone")
                .isEqualTo(4);
        assertThat(changed.expression()).isEqualTo("0 0 4 * * *");
    }

    @Test
    @DisplayName("S-SC-1: configuration alone declares a schedule; enabled=false withdraws a declared one")
    void configurationDeclaresAndDisables() {
        Overrides configured = new Overrides(
                "schedules.report", null, "5m", null, "{\"name\":\"cfg\",\"copies\":1}", null, CatchUpPolicy.ALL, null);
        engineSchedules.synchronizeDeclared(declarations(Map.of("configured.report", configured)));
        ScheduleInfo info = schedules.get("configured.report").orElseThrow();
        assertThat(info.expression()).isEqualTo("every 5m");
        assertThat(info.catchUp()).isEqualTo(CatchUpPolicy.ALL);

        Overrides disabled = new Overrides(null, null, null, null, null, null, null, false);
        engineSchedules.synchronizeDeclared(
                declarations(Map.of("configured.report", configured, "declared.frequent", disabled)));
        assertThat(schedules.get("declared.frequent")).isEmpty();
        assertThat(schedules.get("configured.report")).isPresent();
    }

    @Test
    @DisplayName("S-SC-8: a run-time upsert of a declared id is refused and changes nothing")
    void upsertOfDeclaredIsRefused() {
        engineSchedules.synchronizeDeclared(declarations(Map.of()));
        ScheduleInfo before = schedules.get("declared.nightly").orElseThrow();

        assertThatThrownBy(() -> schedules.upsert(ScheduleDefinition.builder("declared.nightly", "schedules.report")
                        .every(Duration.ofMinutes(1))
                        .payload(Map.of("name", "x", "copies", 1))
                        .build()))
                .isInstanceOf(ScheduleDeclaredException.class)
                .hasMessageContaining("declared.nightly");
        assertThat(schedules.get("declared.nightly")).contains(before);
    }

    @Test
    @DisplayName(
            "S-SC-5: an invalid declaration fails naming the class, the schedule and the field; nothing is written")
    void invalidDeclarationNamesTheClass() {
        long before =
                runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".schedules", Long.class);
        Map<String, ScheduleDeclaration> annotated =
                ScheduleAnnotations.read(new io.runlane.internal.registry.TaskRegistry(
                        List.of(new io.runlane.internal.registry.TaskDefinitionReader(
                                        runlane.engine().settings())
                                .read(new ScheduleTasks.BadlyDeclared()))));

        assertThatThrownBy(() -> engineSchedules.synchronizeDeclared(List.copyOf(annotated.values())))
                .isInstanceOfSatisfying(
                        ScheduleInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("task"))
                .hasMessageContaining("declared.bad")
                .hasMessageContaining(ScheduleTasks.BadlyDeclared.class.getName());
        assertThatThrownBy(() -> engineSchedules.synchronizeDeclared(declarations(Map.of(
                        "declared.nightly", new Overrides(null, null, null, "Mars/Olympus", null, null, null, null)))))
                .isInstanceOfSatisfying(
                        ScheduleInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("zone"))
                .hasMessageContaining("runlane.schedules.declared.nightly")
                .hasMessageContaining(ScheduleTasks.Declared.class.getName());
        assertThatThrownBy(() -> engineSchedules.synchronizeDeclared(
                        declarations(Map.of("declared.nightly", cron("not a cron")))))
                .isInstanceOfSatisfying(
                        ScheduleInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("cron"))
                .hasMessageContaining(ScheduleTasks.Declared.class.getName());
        assertThatThrownBy(() -> engineSchedules.synchronizeDeclared(declarations(
                        Map.of("declared.frequent", new Overrides(null, null, "soon", null, null, null, null, null)))))
                .isInstanceOfSatisfying(
                        ScheduleInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("every"));
        assertThatThrownBy(() -> engineSchedules.synchronizeDeclared(declarations(Map.of(
                        "declared.frequent", new Overrides(null, null, null, null, "{not json", null, null, null)))))
                .isInstanceOfSatisfying(
                        ScheduleInvalidException.class,
                        ex -> assertThat(ex.field()).isEqualTo("payload"));
        assertThat(runlane.jdbc().queryForObject("SELECT count(*) FROM " + runlane.schema() + ".schedules", Long.class))
                .isEqualTo(before);
    }
}
