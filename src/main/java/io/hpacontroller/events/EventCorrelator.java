package io.hpacontroller.events;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * What client-go's event recorder does with an event before it reaches the API server
 * ({@code tools/record/events_cache.go}, {@code EventCorrelator}), with its numbers:
 *
 * <ol>
 *   <li>aggregation: when one object gets more than {@value #AGGREGATE_MAX_EVENTS} distinct messages for
 *       the same type and reason, each less than {@link #AGGREGATE_INTERVAL} after the previous one, they
 *       are written as one event "(combined from similar events): <last message>";</li>
 *   <li>counting: an event identical to one already written bumps that event's {@code count} instead of
 *       creating another;</li>
 *   <li>spam filter: every write about one object takes a token from that object's bucket of
 *       {@value #SPAM_BURST}, refilled at one token per {@link #SPAM_REFILL}; without a token the write
 *       is skipped (its count still grows, and the next write carries it).</li>
 * </ol>
 * Each of the three remembers at most {@value #REMEMBERED} keys, least recently used first out. One
 * publishing thread calls this: it is not thread-safe.
 */
final class EventCorrelator {

    static final int AGGREGATE_MAX_EVENTS = 10;
    static final Duration AGGREGATE_INTERVAL = Duration.ofMinutes(10);
    static final int SPAM_BURST = 25;
    static final Duration SPAM_REFILL = Duration.ofMinutes(5);
    static final int REMEMBERED = 4096;
    static final String AGGREGATED_PREFIX = "(combined from similar events): ";

    /** An event about an object, as a recorder is asked to post it. */
    record Occurrence(String namespace, String name, String uid, String type, String reason, String message) {

        private String objectKey() {
            return namespace + "\u0000" + name + "\u0000" + uid;
        }
    }

    /**
     * An event write: create {@code name} (count 1, or the count it had when the API server lost it), or
     * bump its count. {@code firstSeen} is the first occurrence this event counts.
     */
    record Write(String name, boolean create, int count, String message, Instant firstSeen) {
    }

    private record Observation(String name, int count, Instant firstSeen) {
    }

    private static final class Similar {
        final Set<String> messages = new LinkedHashSet<>();
        Instant last;
    }

    private static final class Bucket {
        double tokens = SPAM_BURST;
        Instant refilled;
    }

    private final Map<String, Similar> similar = lru();
    private final Map<String, Observation> observed = lru();
    private final Map<String, Bucket> buckets = lru();
    private long sequence;

    private static <V> Map<String, V> lru() {
        return new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > REMEMBERED;
            }
        };
    }

    /** The write to make for this occurrence at {@code now}, or null when the spam filter drops it. */
    Write correlate(Occurrence e, Instant now) {
        String similarKey = e.objectKey() + "\u0000" + e.type() + "\u0000" + e.reason();
        String key = similarKey + "\u0000" + e.message();
        String message = e.message();

        Similar group = similar.get(similarKey);
        if (group == null || Duration.between(group.last, now).compareTo(AGGREGATE_INTERVAL) > 0) {
            group = new Similar();
        }
        group.messages.add(e.message());
        group.last = now;
        similar.put(similarKey, group);
        if (group.messages.size() >= AGGREGATE_MAX_EVENTS) {
            Iterator<String> any = group.messages.iterator();
            any.next();
            any.remove();
            key = similarKey;
            message = AGGREGATED_PREFIX + e.message();
        }

        Observation last = observed.get(key);
        Observation next = last == null
                ? new Observation(e.name() + "." + Long.toHexString(now.toEpochMilli() * 1_000_000L + (sequence++ % 1_000_000L)), 1, now)
                : new Observation(last.name(), last.count() + 1, last.firstSeen());
        observed.put(key, next);

        if (!takeToken(e.objectKey(), now)) {
            return null;
        }
        return new Write(next.name(), last == null, next.count(), message, next.firstSeen());
    }

    private boolean takeToken(String objectKey, Instant now) {
        Bucket b = buckets.computeIfAbsent(objectKey, k -> new Bucket());
        if (b.refilled != null && now.isAfter(b.refilled)) {
            double refill = Duration.between(b.refilled, now).toNanos() / (double) SPAM_REFILL.toNanos();
            b.tokens = Math.min(SPAM_BURST, b.tokens + refill);
        }
        if (b.refilled == null || now.isAfter(b.refilled)) {
            b.refilled = now;
        }
        if (b.tokens < 1) {
            return false;
        }
        b.tokens -= 1;
        return true;
    }
}
