package io.hpacontroller.metrics;

import io.hpacontroller.core.GoDuration;
import io.hpacontroller.core.port.ApiException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The bulkhead between the metrics APIs ({@code --metrics-max-inflight-per-source}): a slow or hanging API holds at
 * most {@code maxInFlight} of the workers, so the others keep syncing the HPAs of the other APIs at their period.
 *
 * <p>An API is <em>slow</em> while one of its requests has been in flight longer than {@code slowAfter}, and after
 * a request to it ended later than that, until one ends sooner. A request to an API that is not slow always goes:
 * a healthy API is never throttled (one API may serve every worker at once, as when all HPAs use metrics.k8s.io).
 * A request to a slow API goes only while fewer than {@code maxInFlight} of its requests are in flight; otherwise it
 * fails at once, without waiting and without a request, as a failed fetch: the metric was not fetched, so nothing is
 * decided from it ({@code FailedGet*Metric}, then the HPA's fallback if it has one). The requests it lets through
 * probe the API: the first that ends in time lifts the bound.
 *
 * <p>Our own code: a semaphore with a wait (resilience4j's Bulkhead) would either throttle a healthy API that serves
 * every worker or let a hanging one take them all; this bound applies only once an API is seen slow.
 */
public final class SourceBulkhead {

    private final int maxInFlight;
    private final long slowAfterNanos;
    private final String slowAfterText;
    private final LongSupplier nanoTime;
    private final Map<String, Source> sources = new ConcurrentHashMap<>();

    public SourceBulkhead(int maxInFlight, Duration slowAfter) {
        this(maxInFlight, slowAfter, System::nanoTime);
    }

    SourceBulkhead(int maxInFlight, Duration slowAfter, LongSupplier nanoTime) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("--metrics-max-inflight-per-source must be at least 1, got " + maxInFlight);
        }
        this.maxInFlight = maxInFlight;
        this.slowAfterNanos = slowAfter.toNanos();
        this.slowAfterText = GoDuration.format(slowAfter);
        this.nanoTime = nanoTime;
    }

    /** A request in flight; closing it ends it (once). */
    public interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Lets a request to {@code source} go, or fails at once when the source is slow and {@code maxInFlight} of its
     * requests are in flight.
     */
    public Permit enter(String source) throws ApiException {
        Source s = sources.computeIfAbsent(source, k -> new Source());
        long now = nanoTime.getAsLong();
        Entry entry = s.tryEnter(now);
        if (entry == null) {
            throw new ApiException("not asked: " + maxInFlight + (maxInFlight == 1 ? " request" : " requests")
                    + " to it already in flight and it is slow (a request took longer than " + slowAfterText
                    + "; --metrics-max-inflight-per-source=" + maxInFlight + ")");
        }
        return entry;
    }

    /** Requests to {@code source} in flight now. */
    int inFlight(String source) {
        Source s = sources.get(source);
        return s == null ? 0 : s.size();
    }

    private final class Source {
        private final List<Entry> inFlight = new ArrayList<>();
        /** Whether the last request that ended took longer than slowAfter. */
        private boolean lastSlow;

        synchronized Entry tryEnter(long now) {
            if (inFlight.size() >= maxInFlight && slow(now)) {
                return null;
            }
            Entry e = new Entry(this, now);
            inFlight.add(e);
            return e;
        }

        private boolean slow(long now) {
            if (lastSlow) {
                return true;
            }
            for (Entry e : inFlight) {
                if (now - e.start > slowAfterNanos) {
                    return true;
                }
            }
            return false;
        }

        synchronized void leave(Entry e, long now) {
            if (inFlight.remove(e)) {
                lastSlow = now - e.start > slowAfterNanos;
            }
        }

        synchronized int size() {
            return inFlight.size();
        }
    }

    private final class Entry implements Permit {
        private final Source source;
        private final long start;

        Entry(Source source, long start) {
            this.source = source;
            this.start = start;
        }

        @Override
        public void close() {
            source.leave(this, nanoTime.getAsLong());
        }
    }
}
