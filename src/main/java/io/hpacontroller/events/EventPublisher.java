package io.hpacontroller.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.hpa.HpaApi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Kubernetes events about HPAs, posted in the background so a reconcile never waits on them.
 *
 * <p>Before an event is written it goes through an {@link EventCorrelator}, as client-go's recorder
 * does in kube-controller-manager: similar events are aggregated, an event identical to one already
 * written bumps that event's {@code count} and {@code lastTimestamp} (what {@code kubectl describe hpa}
 * shows as "(x5 over 3m)"), and writes about one HPA are rate-limited (a burst of 25, then one per
 * 5 minutes), so a broken HPA cannot flood the API server. When the queue of events to post is full,
 * new events are dropped and counted, never blocking a worker.
 */
public final class EventPublisher implements EventRecorder, AutoCloseable {

    static final String COMPONENT = "horizontal-pod-autoscaler";
    private static final Logger LOG = LoggerFactory.getLogger(EventPublisher.class);

    private final KubeApi api;
    private final Clock clock;
    private final WriteGate gate;
    private final ThreadPoolExecutor executor;
    private final EventCorrelator correlator = new EventCorrelator();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong rateLimited = new AtomicLong();
    private final AtomicLong posted = new AtomicLong();

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

    /** What an event names of its HPA: a queued event holds this, not the HPA (whose annotations may weigh 256 KB). */
    private record Involved(String apiVersion, String namespace, String name, String uid, String resourceVersion) {
    }

    @Override
    public void record(HorizontalPodAutoscaler hpa, Type type, String reason, String message) {
        if (!gate.isOpen()) {
            return; // recorded by a sync whose writes are refused (a lapsed lease): not posted later, when the gate may be open again
        }
        Instant now = clock.instant();
        var meta = hpa.getMetadata();
        Involved involved = new Involved(HpaApi.of(hpa).apiVersion(), meta.getNamespace(), meta.getName(), meta.getUid(), meta.getResourceVersion());
        executor.execute(() -> publish(involved, type, reason, message, now));
    }

    /** Correlates and writes an event that happened at {@code now}. */
    private void publish(Involved hpa, Type type, String reason, String message, Instant now) {
        if (!gate.isOpen()) {
            return;
        }
        String namespace = hpa.namespace();
        EventCorrelator.Write write = correlator.correlate(new EventCorrelator.Occurrence(namespace, hpa.name(),
                hpa.uid(), type.name(), reason, message), now);
        if (write == null) {
            rateLimited.incrementAndGet();
            return;
        }
        try {
            if (write.create()) {
                create(hpa, type, reason, write, now);
            } else {
                try {
                    api.mergePatch("/api/v1/namespaces/" + PathSegment.encode(namespace) + "/events/" + PathSegment.encode(write.name()), "{\"count\":" + write.count()
                            + ",\"lastTimestamp\":\"" + time(now) + "\",\"message\":" + api.serialization().asJson(write.message()) + "}");
                } catch (ApiException.NotFound e) {
                    create(hpa, type, reason, write, now); // expired on the server (--event-ttl): written again, as client-go does
                }
            }
            posted.incrementAndGet();
        } catch (ApiException e) {
            LOG.warn("could not post event {} for HPA {}/{}: {}", reason, namespace, hpa.name(), e.getMessage());
        }
    }

    private void create(Involved hpa, Type type, String reason, EventCorrelator.Write write, Instant now) throws ApiException {
        String namespace = hpa.namespace();
        Event event = new EventBuilder()
                .withNewMetadata().withName(write.name()).withNamespace(namespace).endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(hpa.apiVersion()).withKind("HorizontalPodAutoscaler")
                .withName(hpa.name()).withNamespace(namespace)
                .withUid(hpa.uid()).withResourceVersion(hpa.resourceVersion())
                .endInvolvedObject()
                .withType(type.name()).withReason(reason).withMessage(write.message())
                .withNewSource().withComponent(COMPONENT).endSource()
                .withReportingComponent(COMPONENT)
                .withFirstTimestamp(time(write.firstSeen())).withLastTimestamp(time(now)).withCount(write.count())
                .build();
        api.post("/api/v1/namespaces/" + PathSegment.encode(namespace) + "/events", event);
    }

    private static String time(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** Events dropped because the queue was full. */
    public long dropped() {
        return dropped.get();
    }

    /** Events not written because their HPA had used up its rate (counted in the next write about it). */
    public long rateLimited() {
        return rateLimited.get();
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
