package io.hpacontroller.core.model;

import java.util.Arrays;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A compact, immutable resource list (resource name to milli-value), e.g. the requests of a
 * container. Stored as two parallel arrays with shared name strings: a pod cache holds many of these.
 */
public final class ResourceAmounts {

    public static final ResourceAmounts EMPTY = new ResourceAmounts(new String[0], new long[0]);

    private static final int SHARED_NAMES_MAX = 1024;
    private static final Map<String, String> SHARED_NAMES = new ConcurrentHashMap<>();

    private final String[] names;
    private final long[] milli;

    private ResourceAmounts(String[] names, long[] milli) {
        this.names = names;
        this.milli = milli;
    }

    /** Builds from resource name to milli-value. */
    public static ResourceAmounts of(Map<String, Long> amounts) {
        if (amounts == null || amounts.isEmpty()) {
            return EMPTY;
        }
        Map<String, Long> sorted = new TreeMap<>(amounts);
        String[] n = new String[sorted.size()];
        long[] v = new long[sorted.size()];
        int i = 0;
        for (Map.Entry<String, Long> e : sorted.entrySet()) {
            n[i] = shared(e.getKey());
            v[i] = e.getValue();
            i++;
        }
        return new ResourceAmounts(n, v);
    }

    /**
     * One string per resource name, so that the pod cache's many lists share them: a map lookup rather than
     * {@link String#intern} (a call into the VM, which took a tenth of reading a metrics answer). The names come
     * from the API, so at most {@value #SHARED_NAMES_MAX} are kept; later ones are not shared.
     */
    private static String shared(String name) {
        String known = SHARED_NAMES.get(name);
        if (known != null) {
            return known;
        }
        if (SHARED_NAMES.size() < SHARED_NAMES_MAX) {
            known = SHARED_NAMES.putIfAbsent(name, name);
        }
        return known == null ? name : known;
    }

    /** The milli-value of a resource, empty when the resource is not listed. */
    public OptionalLong get(String resource) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(resource)) {
                return OptionalLong.of(milli[i]);
            }
        }
        return OptionalLong.empty();
    }

    public boolean isEmpty() {
        return names.length == 0;
    }

    public Map<String, Long> asMap() {
        Map<String, Long> m = new TreeMap<>();
        for (int i = 0; i < names.length; i++) {
            m.put(names[i], milli[i]);
        }
        return m;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResourceAmounts r && Arrays.equals(r.names, names) && Arrays.equals(r.milli, milli);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(names) + Arrays.hashCode(milli);
    }

    @Override
    public String toString() {
        return asMap().toString();
    }
}
