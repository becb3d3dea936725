package io.hpacontroller.core.model;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/** An object's labels, compact and immutable: sorted key/value pairs in one array. */
public final class Labels {

    public static final Labels EMPTY = new Labels(new String[0]);

    private final String[] pairs;

    private Labels(String[] pairs) {
        this.pairs = pairs;
    }

    /** From a map; strings are interned, so pods of one template share them. */
    public static Labels of(Map<String, String> labels) {
        if (labels == null || labels.isEmpty()) {
            return EMPTY;
        }
        String[] pairs = new String[labels.size() * 2];
        int i = 0;
        for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
            pairs[i++] = e.getKey().intern();
            pairs[i++] = e.getValue() == null ? "" : e.getValue().intern();
        }
        return new Labels(pairs);
    }

    /** The value of a label, null when absent. */
    public String get(String key) {
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i].equals(key)) {
                return pairs[i + 1];
            }
        }
        return null;
    }

    public int size() {
        return pairs.length / 2;
    }

    public String key(int i) {
        return pairs[2 * i];
    }

    public String value(int i) {
        return pairs[2 * i + 1];
    }

    public Map<String, String> asMap() {
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Labels l && Arrays.equals(l.pairs, pairs);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(pairs);
    }

    @Override
    public String toString() {
        return asMap().toString();
    }
}
