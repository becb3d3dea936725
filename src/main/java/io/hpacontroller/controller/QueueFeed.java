package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.KubeTime;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.reconcile.HpaSelectorIndex;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.HpaControlsCache;
import io.hpacontroller.shadow.Shadow;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What puts HPA keys into the {@link HorizontalController}'s {@link WorkQueue}: the HPA informers' events (a new HPA,
 * or one whose spec or controls changed, and the sync period each HPA asks for) and the sweep, a safety net that
 * re-adds every cached HPA the queue does not track. Also registers each HPA's selector and hands autoscaling/v2
 * HPAs to {@link Shadow} mode. A deleted HPA goes to the controller's one forget path.
 */
final class QueueFeed implements Informers.HpaEvents {

    /** The least interval of the sweep ({@link #sweep}). */
    private static final Duration SWEEP_FLOOR = Duration.ofSeconds(1);

    private final WorkQueue queue;
    private final Informers informers;
    private final ControllerOptions options;
    private final HpaSelectorIndex selectors;
    private final HpaControlsCache controls;
    /** When this process started: an HPA created after it is new, and synced at once. */
    private final Instant processStart;
    /** Shadow mode, null without it. */
    private final Shadow shadow;
    /** The controller's one path for an HPA that is gone. */
    private final Consumer<HpaKey> forget;
    private ScheduledExecutorService sweeper;

    QueueFeed(WorkQueue queue, Informers informers, ControllerOptions options, HpaSelectorIndex selectors, HpaControlsCache controls,
              Instant processStart, Shadow shadow,
              Consumer<HpaKey> forget) {
        this.queue = queue;
        this.informers = informers;
        this.options = options;
        this.selectors = selectors;
        this.controls = controls;
        this.processStart = processStart;
        this.shadow = shadow;
        this.forget = forget;
    }

    /**
     * Whether HPAs of this API go through the work queue: mirror HPAs always; autoscaling/v2 ones when an API is
     * selected (reconciled, or read for their selectors next to mirror HPAs).
     */
    private boolean queues(HpaApi api) {
        return api == HpaApi.MIRROR || !options.apis().isEmpty();
    }

    @Override
    public void onAdd(HorizontalPodAutoscaler hpa, HpaApi api) {
        added(hpa, queues(api));
        if (api == HpaApi.BUILTIN && shadow != null) {
            shadow.added(hpa);
        }
    }

    @Override
    public void onUpdate(HorizontalPodAutoscaler old, HorizontalPodAutoscaler hpa, HpaApi api) {
        updated(old, hpa, queues(api));
        if (api == HpaApi.BUILTIN && shadow != null) {
            shadow.updated(old, hpa);
        }
    }

    @Override
    public void onDelete(HorizontalPodAutoscaler hpa, HpaApi api) {
        forget.accept(HpaKey.of(hpa));
    }

    private void added(HorizontalPodAutoscaler hpa, boolean queue) {
        HpaKey key = HpaKey.of(hpa);
        selectors.register(key, hpa.getMetadata().getNamespace());
        if (!queue) {
            return;
        }
        if (createdSinceStart(hpa)) {
            this.queue.addChanged(key, periodOf(key, hpa));
        } else {
            this.queue.add(key, periodOf(key, hpa));
        }
    }

    /** Whether this instance reconciles the HPA (it is not an autoscaling/v2 HPA only read for its selector). */
    boolean reconciledHere(HorizontalPodAutoscaler hpa) {
        return reconciledHere(HpaKey.of(hpa));
    }

    /** Whether this instance reconciles the HPA of this key. */
    boolean reconciledHere(HpaKey key) {
        return options.apis().contains(HpaApi.BUILTIN) || HpaApi.ofKey(key) != HpaApi.BUILTIN;
    }

    /** Whether the HPA was created after this process started (the API server's clock, to the second). */
    private boolean createdSinceStart(HorizontalPodAutoscaler hpa) {
        long at = KubeTime.parse(hpa.getMetadata().getCreationTimestamp(), Long.MIN_VALUE);
        return at != Long.MIN_VALUE && at >= processStart.toEpochMilli();
    }

    private void updated(HorizontalPodAutoscaler old, HorizontalPodAutoscaler hpa, boolean queue) {
        HpaKey key = HpaKey.of(hpa);
        selectors.register(key, hpa.getMetadata().getNamespace());
        if (queue && (!Objects.equals(old.getMetadata().getGeneration(), hpa.getMetadata().getGeneration()) || HpaControlsCache.changed(old, hpa))) {
            this.queue.addChanged(key, periodOf(key, hpa));
        }
    }

    /**
     * The period the queue schedules the HPA's next sync by, handed to it with the key whenever the informer delivers
     * the HPA (so that a changed period counts from the change on): its own when its controls give one and it is
     * reconciled here, else null (the flag's).
     */
    private Duration periodOf(HpaKey key, HorizontalPodAutoscaler hpa) {
        if (!reconciledHere(hpa)) {
            return null;
        }
        Parsed<HpaControls> hpaControls = controls.of(key, hpa);
        return hpaControls instanceof Parsed.Valid<HpaControls> v ? v.value().syncPeriod() : null;
    }

    /** Sweeps now, then once a sync period (not more often than {@link #SWEEP_FLOOR}) until {@link #stopSweeping}. */
    void startSweeping() {
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "hpa-sweep");
            t.setDaemon(true);
            return t;
        });
        // A safety net that walks every cached HPA: once a period, but not more often than SWEEP_FLOOR (at the
        // bench's 1 ms period it took more CPU than the 5 workers together)
        long period = Math.max(options.syncPeriod().toMillis(), SWEEP_FLOOR.toMillis());
        sweeper.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
        sweep();
    }

    void stopSweeping() {
        if (sweeper != null) {
            sweeper.shutdownNow();
            sweeper = null;
        }
    }

    /** Queues every cached HPA the queue does not know about (with the period it was last added with). */
    void sweep() {
        if (queues(HpaApi.BUILTIN)) {
            sweep(informers.keys(HpaApi.BUILTIN));
        }
        sweep(informers.keys(HpaApi.MIRROR));
    }

    private void sweep(List<HpaKey> keys) {
        for (HpaKey key : keys) {
            if (!queue.isTracked(key)) {
                queue.add(key);
            }
        }
    }
}
