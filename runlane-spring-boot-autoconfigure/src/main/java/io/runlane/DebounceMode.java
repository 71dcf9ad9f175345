package io.runlane;

/** What a trigger folded into a pending debounced run does with its payload (S-DB-2). */
public enum DebounceMode {
    /** The folded trigger's payload, validated first, replaces the pending run's. */
    LATEST,
    /** The pending run keeps the first trigger's payload; later triggers only move its due time. */
    FIRST
}
