package io.runlane.autoconfigure;

import io.runlane.ConfigurationInvalidException;
import io.runlane.internal.schedule.ScheduleDeclaration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Binds the schedules declared in configuration, {@code runlane.schedules.<id>.*} (S-SC-1). They share their prefix
 * with the settings {@code runlane.schedules.catch-up-window} and {@code poll-interval}, so they cannot be a map
 * property of {@link RunlaneProperties}: the ids are collected from the property names (an id with dots is written
 * in brackets, {@code runlane.schedules[reports.nightly].cron}) and each is bound on its own.
 */
final class ConfiguredSchedules {

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("runlane.schedules");

    private static final Set<String> SETTINGS =
            Set.of("catch-up-window", "catchupwindow", "poll-interval", "pollinterval");

    private ConfiguredSchedules() {}

    static Map<String, ScheduleDeclaration.Overrides> bind(Environment environment) {
        Set<String> ids = new LinkedHashSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream()
                        .filter(name ->
                                ROOT.isAncestorOf(name) && name.getNumberOfElements() > ROOT.getNumberOfElements() + 1)
                        .map(name -> name.getElement(ROOT.getNumberOfElements(), Form.ORIGINAL))
                        .filter(id -> !SETTINGS.contains(id.toLowerCase(Locale.ROOT)))
                        .forEach(ids::add);
            }
        }
        Binder binder = Binder.get(environment);
        Map<String, ScheduleDeclaration.Overrides> schedules = new LinkedHashMap<>();
        for (String id : ids) {
            ScheduleDeclaration.Overrides overrides = binder.bind(
                            ConfigurationPropertyName.of(ROOT + "[" + id + "]"),
                            Bindable.of(ScheduleDeclaration.Overrides.class))
                    .orElseThrow(() -> new ConfigurationInvalidException(
                            ROOT + "." + id,
                            "sets none of task, cron, every, zone, payload, overlap, catch-up, enabled; an id with"
                                    + " dots is written in brackets, such as runlane.schedules[reports.daily].cron"));
            schedules.put(id, overrides);
        }
        return schedules;
    }
}
