package io.hpacontroller.live;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.core.reconcile.ApiException;
import io.hpacontroller.core.reconcile.EventRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Kubernetes events about HPAs, posted in the background so a reconcile never waits on them.
 *
 * <p>Like client-go's event correlator, an event identical to one posted in the last
 * {@link #DEDUPLICATION_WINDOW} (same HPA, type, reason and message) is not posted again: the
 * existing event's {@code count} and {@code lastTimestamp} are bumped, which is what
 * {@code kubectl describe hpa} shows as "(x5 over 3m)". When the queue of events to post is full,
 * new events are dropped and counted, never blocking a worker.
 */
public final class EventPublisher implements EventRecorder, AutoCloseable {

    static final Duration DEDUPLICATION_WINDOW = Duration.ofMinutes(10);
    static final String COMPONENT = "horizontal-pod-autoscaler";
    private static final int MAX_REMEMBERED = 4096;
    private static final Logger LOG = LoggerFactory.getLogger(EventPublisher.class);

    private final KubeApi api;
    private final Clock clock;
    private final ThreadPoolExecutor executor;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong posted = new AtomicLong();
    private final Map<String, Posted> recent = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Posted> eldest) {
            return size() > MAX_REMEMBERED;
        }
    };

    private static final class Posted {
        final String namespace;
        final String name;
        int count;
        long last;

        Posted(String namespace, String name, long last) {
            this.namespace = namespace;
            this.name = name;
            this.count = 1;
            this.last = last;
        }
    }

    private final WriteGate gate;

    public EventPublisher(KubeApi api, Clock clock, WriteGate gate) {
        this.api = api;
        this.clock = clock;
        this.gate = gate;
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1000), r -> {
            Thread t = new Thread(r, "event-publisher");
            t.setDaemon(true);
            return t;
        }, (r, e) -> dropped.incrementAndGet());
    }

    @Override
    public void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        executor.execute(() -> publish(hpa, type, reason, message));
    }

    private void publish(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        if (!gate.isOpen()) {
            return;
        }
        String namespace = hpa.getMetadata().getNamespace();
        String key = namespace + "/" + hpa.getMetadata().getName() + "/" + hpa.getMetadata().getUid() + "/" + type + "/" + reason + "/" + message;
        long now = clock.millis();
        String time = Instant.ofEpochMilli(now).truncatedTo(ChronoUnit.SECONDS).toString();
        try {
            Posted p;
            synchronized (recent) {
                p = recent.get(key);
            }
            if (p != null && now - p.last < DEDUPLICATION_WINDOW.toMillis()) {
                p.count++;
                p.last = now;
                api.mergePatch("/api/v1/namespaces/" + p.namespace + "/events/" + p.name,
                        "{\"count\":" + p.count + ",\"lastTimestamp\":\"" + time + "\"}");
                posted.incrementAndGet();
                return;
            }
            String name = hpa.getMetadata().getName() + "." + Long.toHexString(System.nanoTime() ^ now * 1_000_003L);
            Event event = new EventBuilder()
                    .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                    .withNewInvolvedObject()
                    .withApiVersion("autoscaling/v2").withKind("HorizontalPodAutoscaler")
                    .withName(hpa.getMetadata().getName()).withNamespace(namespace)
                    .withUid(hpa.getMetadata().getUid()).withResourceVersion(hpa.getMetadata().getResourceVersion())
                    .endInvolvedObject()
                    .withType(type.name()).withReason(reason).withMessage(message)
                    .withNewSource().withComponent(COMPONENT).endSource()
                    .withReportingComponent(COMPONENT)
                    .withFirstTimestamp(time).withLastTimestamp(time).withCount(1)
                    .build();
            api.post("/api/v1/namespaces/" + namespace + "/events", event);
            posted.incrementAndGet();
            synchronized (recent) {
                recent.put(key, new Posted(namespace, name, now));
            }
        } catch (ApiException e) {
            LOG.warn("could not post event {} for HPA {}/{}: {}", reason, namespace, hpa.getMetadata().getName(), e.getMessage());
        }
    }

    /** Events dropped because the queue was full. */
    public long dropped() {
        return dropped.get();
    }

    /** Events posted or bumped. */
    public long posted() {
        return posted.get();
    }

    /** Waits until queued events are posted (for tests and shutdown). */
    public void flush(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while ((executor.getQueue().size() > 0 || executor.getActiveCount() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
