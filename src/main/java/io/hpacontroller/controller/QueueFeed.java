package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.KubeTime;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.reconcile.HpaSelectorIndex;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.HpaControlsCache;
import io.hpacontroller.hpa.UnsyncedHpaSelectors;
import io.hpacontroller.shadow.Shadow;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What puts HPA keys into the {@link HorizontalController}'s {@link WorkQueue}: the HPA informers' events (a new HPA,
 * or one whose spec or controls changed, and the sync period each HPA asks for) and the sweep, a safety net that
 * re-adds every cached HPA the queue does not track. Also registers each HPA in the selector index, records its
 * target's selector ahead of its sync ({@link UnsyncedHpaSelectors#prime}) and hands autoscaling/v2 HPAs to
 * {@link Shadow} mode. A deleted HPA goes to the controller's one forget path.
 *
 * <p>With {@code --sharding} only the HPAs this replica owns go into the queue ({@link SyncClaims#queues}; the ones it
 * gains or loses at a change of view come through {@link OwnedKeys}); another replica's HPA has its target's selector
 * recorded instead ({@link UnsyncedHpaSelectors#refreshOther}), for the AmbiguousSelector check of the HPAs synced
 * here: when it is added or its spec changes, and by the sweep once a period (its target's selector may change).
 */
final class QueueFeed implements Informers.HpaEvents, OwnedKeys {

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
    private final UnsyncedHpaSelectors unsynced;
    /** Which HPAs go into the queue: every one, or with {@code --sharding} the ones this replica owns. */
    private volatile SyncClaims claims = SyncClaims.ALL;
    private volatile ScheduledExecutorService sweeper;

    QueueFeed(WorkQueue queue, Informers informers, ControllerOptions options, HpaSelectorIndex selectors, HpaControlsCache controls,
              Instant processStart, Shadow shadow, UnsyncedHpaSelectors unsynced, Consumer<HpaKey> forget) {
        this.queue = queue;
        this.informers = informers;
        this.options = options;
        this.selectors = selectors;
        this.controls = controls;
        this.processStart = processStart;
        this.shadow = shadow;
        this.forget = forget;
        this.unsynced = unsynced;
    }

    void claimThrough(SyncClaims claims) {
        this.claims = claims;
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
        if (!claims.queues(key)) {
            refreshOther(key);
            return;
        }
        unsynced.prime(hpa); // its selector counts in the checks of the HPAs synced before it (never a request)
        if (createdSinceStart(hpa)) {
            this.queue.addChanged(key, periodOf(key, hpa));
        } else {
            this.queue.add(key, periodOf(key, hpa));
        }
    }

    /**
     * Another replica's HPA: its selector counts in the AmbiguousSelector check of the HPAs synced here. Only once the
     * workers started: the sweep then records every one (before, nothing is synced here, and a target's scale could
     * cost a GET while the workload informers have not synced).
     */
    private void refreshOther(HpaKey key) {
        if (sweeper != null) {
            unsynced.refreshOther(key, informers::lookup);
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
        boolean specChanged = !Objects.equals(old.getMetadata().getGeneration(), hpa.getMetadata().getGeneration());
        if (!queue || !specChanged && !HpaControlsCache.changed(old, hpa)) {
            return;
        }
        if (claims.queues(key)) {
            this.queue.addChanged(key, periodOf(key, hpa));
        } else if (specChanged) {
            refreshOther(key); // its target may have changed
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

    /**
     * Queues every cached HPA the queue does not know about (with the period it was last added with) that goes into it;
     * with {@code --sharding}, records the selectors of the others' HPAs (nothing when neither the HPA nor its target's
     * scale changed).
     */
    void sweep() {
        for (HpaKey key : all()) {
            if (queue.isTracked(key)) {
                continue;
            }
            if (claims.queues(key)) {
                queue.add(key);
            } else {
                unsynced.refreshOther(key, informers::lookup);
            }
        }
    }

    @Override
    public Collection<HpaKey> all() {
        List<HpaKey> keys = new ArrayList<>();
        if (queues(HpaApi.BUILTIN)) {
            keys.addAll(informers.keys(HpaApi.BUILTIN));
        }
        keys.addAll(informers.keys(HpaApi.MIRROR));
        return keys;
    }

    @Override
    public void gained(HpaKey key) {
        HorizontalPodAutoscaler hpa = informers.lookup(key);
        if (hpa != null) {
            queue.add(key, periodOf(key, hpa));
        }
    }

    /**
     * A worker took the key but may not sync it now (another replica's: ownership changed since it was queued, or this
     * replica's Lease lapsed): its schedule's due kept, unless it was synced here and is forgotten now.
     */
    void refused(HpaKey key) {
        if (claims.letGo(key)) { // synced here before, another replica's now: what this one kept of it goes stale
            forget.accept(key);
        }
        unsynced.refreshOther(key, informers::lookup); // its selector still counts in the AmbiguousSelector check
        queue.skipped(key);
    }

    @Override
    public void lost(HpaKey key) {
        if (claims.letGo(key)) { // synced here before: what this one kept of it goes stale
            forget.accept(key);
        } else {
            queue.forget(key);
        }
        refreshOther(key);
    }
}
