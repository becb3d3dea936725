package io.hpacontroller.core.labels;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Selector texts parsed once: a target's selector rarely changes, and every sync (or selector refresh) needs it.
 * Invalid texts are not kept (they are parsed again, and fail again, each time). Bounded: emptied when it holds more
 * than {@value #MAX} texts.
 */
public final class ParsedSelectors {

    private static final int MAX = 65_536;

    private final Map<String, Selector> parsed = new ConcurrentHashMap<>();

    /** The parsed form of the text; throws IllegalArgumentException as {@link Selector#parse} when it does not parse. */
    public Selector of(String text) {
        Selector selector = parsed.get(text);
        if (selector == null) {
            selector = Selector.parse(text);
            if (parsed.size() >= MAX) {
                parsed.clear();
            }
            parsed.put(text, selector);
        }
        return selector;
    }
}
