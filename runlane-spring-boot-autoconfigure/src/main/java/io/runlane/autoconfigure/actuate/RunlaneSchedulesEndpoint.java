package io.runlane.autoconfigure.actuate;

import io.runlane.CatchUpPolicy;
import io.runlane.OverlapPolicy;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInfo;
import io.runlane.ScheduleNotFoundException;
import io.runlane.ScheduleOperations;
import io.runlane.TriggerResult;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code runlaneschedules} actuator endpoint (S-SC-5): Runlane's schedules, and the operators' actions on them.
 * Over HTTP, under {@code /actuator/runlaneschedules}: {@code GET} (every schedule), {@code GET {id}}, {@code POST
 * {id}/pause|resume|trigger}, {@code POST {id}} with {@code taskId}, {@code cron} or {@code every}, and optionally
 * {@code zone}, {@code payload}, {@code overlap}, {@code catchUp} (creates or changes a run-time schedule) and {@code
 * DELETE {id}}. Like {@link RunlaneEndpoint} its default access is read-only: the actions need {@code
 * management.endpoint.runlaneschedules.access=unrestricted}. A separate endpoint keeps {@link RunlaneEndpoint} within
 * its size; {@link RunlaneSchedulesEndpointWebExtension} gives refused actions their HTTP statuses.
 */
@Endpoint(id = "runlaneschedules", defaultAccess = Access.READ_ONLY)
public final class RunlaneSchedulesEndpoint {

    private final ScheduleOperations schedules;

    private final JsonMapper jsonMapper;

    /** Creates the endpoint; {@code jsonMapper} reads the payloads of upserts. */
    public RunlaneSchedulesEndpoint(ScheduleOperations schedules, JsonMapper jsonMapper) {
        this.schedules = schedules;
        this.jsonMapper = jsonMapper;
    }

    /** Every schedule, in id order. */
    @ReadOperation
    public SchedulesDescriptor schedules() {
        return new SchedulesDescriptor(schedules.list());
    }

    /** One schedule, or {@code null} (404) when there is none. */
    @ReadOperation
    public @Nullable ScheduleInfo schedule(@Selector String id) {
        return schedules.get(id).orElse(null);
    }

    /**
     * Pauses, resumes or triggers a schedule now ({@code action} is {@code pause}, {@code resume} or {@code
     * trigger}).
     *
     * @throws ScheduleNotFoundException when there is no such schedule
     */
    @WriteOperation
    public ScheduleActionDescriptor action(@Selector String id, @Selector String action) {
        UUID runId = null;
        switch (action) {
            case "pause" -> schedules.pause(id);
            case "resume" -> schedules.resume(id);
            case "trigger" -> {
                TriggerResult result = schedules.triggerNow(id);
                runId = result.runId();
            }
            default ->
                throw new InvalidEndpointRequestException(
                        "Unknown schedule action '" + action + "'; use pause, resume or trigger",
                        "Unknown schedule action");
        }
        return new ScheduleActionDescriptor(
                schedules.get(id).orElseThrow(() -> new ScheduleNotFoundException(id)), runId);
    }

    /**
     * Creates or changes a run-time schedule (S-SC-5); {@code every} is a duration such as {@code 30s} or an ISO-8601
     * one, {@code payload} JSON text of the task's payload type (the endpoint's request body holds only strings).
     *
     * @throws io.runlane.ScheduleInvalidException naming the invalid field
     * @throws io.runlane.ScheduleDeclaredException for the id of a declared schedule
     */
    @WriteOperation
    public ScheduleInfo upsert(
            @Selector String id,
            String taskId,
            @Nullable String cron,
            @Nullable String every,
            @Nullable String zone,
            @Nullable String payload,
            @Nullable String overlap,
            @Nullable String catchUp) {
        ScheduleDefinition.Builder definition =
                ScheduleDefinition.builder(id, taskId).cron(cron).every(every == null ? null : duration(every));
        if (zone != null) {
            definition.zone(zoneId(zone));
        }
        if (payload != null) {
            definition.payload(json(payload));
        }
        if (overlap != null) {
            definition.overlap(constant(OverlapPolicy.class, "overlap", overlap));
        }
        if (catchUp != null) {
            definition.catchUp(constant(CatchUpPolicy.class, "catchUp", catchUp));
        }
        return schedules.upsert(definition.build());
    }

    /** Deletes a schedule; its runs stay. */
    @DeleteOperation
    public ScheduleDeletedDescriptor delete(@Selector String id) {
        return new ScheduleDeletedDescriptor(id, schedules.delete(id));
    }

    private static Duration duration(String value) {
        try {
            return DurationFormatterUtils.detectAndParse(value);
        } catch (IllegalArgumentException ex) {
            throw new InvalidEndpointRequestException(
                    "every: '" + value + "' is not a duration such as 30s", "Invalid every", ex);
        }
    }

    private JsonNode json(String payload) {
        try {
            return jsonMapper.readTree(payload);
        } catch (JacksonException ex) {
            throw new InvalidEndpointRequestException(
                    "payload: not JSON: " + ex.getOriginalMessage(), "Invalid payload", ex);
        }
    }

    private static ZoneId zoneId(String value) {
        try {
            return ZoneId.of(value);
        } catch (java.time.DateTimeException ex) {
            throw new InvalidEndpointRequestException(
                    "zone: '" + value + "' is not a time zone id", "Invalid zone", ex);
        }
    }

    private static <E extends Enum<E>> E constant(Class<E> type, String field, String value) {
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException ex) {
            throw new InvalidEndpointRequestException(
                    field + ": '" + value + "' is not one of " + List.of(type.getEnumConstants()),
                    "Invalid " + field,
                    ex);
        }
    }

    /**
     * Every schedule.
     *
     * @param schedules the schedules in id order
     */
    public record SchedulesDescriptor(List<ScheduleInfo> schedules) implements OperationResponseBody {}

    /**
     * A schedule after an action.
     *
     * @param schedule the schedule as it is now
     * @param runId the run a {@code trigger} created or found, otherwise {@code null}
     */
    public record ScheduleActionDescriptor(
            ScheduleInfo schedule, @Nullable UUID runId) implements OperationResponseBody {}

    /**
     * The answer to a delete.
     *
     * @param id the schedule's id
     * @param deleted whether there was a schedule to delete
     */
    public record ScheduleDeletedDescriptor(String id, boolean deleted) implements OperationResponseBody {}
}
