package io.runlane;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of a listing.
 *
 * @param items the items of this page
 * @param nextCursor an opaque cursor for the next page, or {@code null} when this is the last page
 * @param <T> the item type
 */
public record Page<T>(List<T> items, @Nullable String nextCursor) {

    public Page {
        items = List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }
}
