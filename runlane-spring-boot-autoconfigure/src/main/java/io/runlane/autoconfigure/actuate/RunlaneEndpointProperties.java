package io.runlane.autoconfigure.actuate;

import java.util.HashSet;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The {@code runlane} actuator endpoint, under {@code management.endpoint.runlane}, as Boot's Quartz endpoint. */
@ConfigurationProperties("management.endpoint.runlane")
public class RunlaneEndpointProperties {

    /** When run payloads are shown unmasked: never, always, or when-authorized. */
    private Show showValues = Show.NEVER;

    /** Roles that may see unmasked payloads when show-values is when-authorized; empty: any authenticated user. */
    private Set<String> roles = new HashSet<>();

    public Show getShowValues() {
        return showValues;
    }

    public void setShowValues(Show showValues) {
        this.showValues = showValues;
    }

    public Set<String> getRoles() {
        return roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }
}
