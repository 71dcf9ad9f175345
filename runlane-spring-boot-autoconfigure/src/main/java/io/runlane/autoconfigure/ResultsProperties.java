package io.runlane.autoconfigure;

import org.springframework.util.unit.DataSize;

/** How task results are stored ({@code runlane.results.*}, S-RS-5). */
public class ResultsProperties {

    /** The largest result a task may return, as JSON; a larger one fails the run with result_too_large. */
    private DataSize maxSize = DataSize.ofMegabytes(1);

    public DataSize getMaxSize() {
        return maxSize;
    }

    public void setMaxSize(DataSize maxSize) {
        this.maxSize = maxSize;
    }
}
