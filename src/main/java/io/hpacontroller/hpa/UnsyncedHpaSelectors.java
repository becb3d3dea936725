package io.hpacontroller.hpa;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.Poll;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.labels.ParsedSelectors;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.reconcile.HpaSelectorIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The selectors of the HPAs this controller watches but does not sync here, recorded in the selector index so that
 * the AmbiguousSelector check of the HPAs it syncs sees them, as upstream's check sees every HPA of the namespace:
 * <ul>
 * <li>the autoscaling/v2 HPAs left to the built-in controller beside mirror HPAs (a mirror HPA and a built-in HPA on
 *     the same pods would fight, and only the mirror one can be told to stand back);</li>
 * <li>with {@code --sharding}, the HPAs other replicas own (two HPAs on one target owned by two replicas would both
 *     scale it);</li>
 * <li>the HPAs synced here, ahead of their first sync ({@link #prime}).</li>
 * </ul>
 * Read-only: the target's scale (from the workload informers, so no request for the built-in workload kinds; one GET
 * of the scale subresource for other kinds). The built-in HPAs left to the built-in controller: once per sync period
 * of the HPA (the queue keeps its key: a change of its spec or of its target's selector is picked up within one
 * period, as upstream records it at each sync). With {@code --sharding} the others' HPAs are not in this replica's
 * queue: {@link #refreshOther} comes from the HPA informer's events and the sweep, once a period, and records nothing
 * when the HPA's resourceVersion, its target's scale and the index's entry are those it recorded last.
 */
public final class UnsyncedHpaSelectors {

    private static final Logger LOG = LoggerFactory.getLogger(UnsyncedHpaSelectors.class);
    /** How long {@link #primeAll} waits for the workload informers it started to list. */
    static final Duration CACHES_WAIT = Duration.ofSeconds(10);

    private final ScaleClient scales;
    private final HpaSelectorIndex index;
    private final ParsedSelectors parsed = new ParsedSelectors();
    /** What {@link #refreshOther} recorded last for each of the others' HPAs: an HPA's resourceVersion, not the HPA (no old object kept). */
    private final Map<HpaKey, Recorded> recorded = new ConcurrentHashMap<>();

    private record Recorded(String hpaVersion, ScaleTarget scale, Selector selector) {
    }

    public UnsyncedHpaSelectors(ScaleClient scales, HpaSelectorIndex index) {
        this.scales = scales;
        this.index = index;
    }

    /**
     * Records the selector of the HPA's target. When it cannot be read, the selector recorded last stays:
     * an HPA on the same pods keeps refusing rather than start a fight.
     */
    public void refresh(HorizontalPodAutoscaler hpa) {
        record(hpa, true);
    }

    /**
     * Records the selector of an HPA synced here before its sync, when a synced informer cache holds its target's scale
     * (never a request: else its sync records it, as upstream's). The driver primes every cached HPA before the workers
     * start and each HPA its informer delivers after: the first syncs after a start, or of HPAs created together, then
     * count every HPA on the pods. Recorded at the sync alone, as upstream records it, the first syncs after a start
     * counted only the HPAs synced before them: each of 2,000 HPAs on one target named those synced so far, then the
     * first three (two status writes each), and the first of two HPAs on one target could scale it before the other's
     * first sync.
     */
    public void prime(HorizontalPodAutoscaler hpa) {
        record(hpa, false);
    }

    /**
     * Primes each of these HPAs (every cached one, before the workers start): once, which starts the informers of their
     * targets' kinds that the informer's events did not, then again once those have listed, if they do within
     * {@link #CACHES_WAIT}; an HPA whose target's kind has not is recorded at its first sync.
     */
    public void primeAll(Collection<HorizontalPodAutoscaler> hpas, BooleanSupplier cachesSynced) {
        hpas.forEach(this::prime);
        if (cachesSynced.getAsBoolean()) {
            return;
        }
        try {
            if (!Poll.until(cachesSynced, CACHES_WAIT)) {
                LOG.info("the workload informers have not listed within {}: the HPAs on their kinds are recorded in the"
                        + " AmbiguousSelector check at their first syncs", CACHES_WAIT);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        hpas.forEach(this::prime);
    }

    /** As {@link #refresh} (a GET of the scale for a kind no informer caches when {@code request}); returns what it recorded, null when nothing. */
    private Recorded record(HorizontalPodAutoscaler hpa, boolean request) {
        CrossVersionObjectReference ref = hpa.getSpec() == null ? null : hpa.getSpec().getScaleTargetRef();
        if (ref == null || ref.getKind() == null || ref.getName() == null) {
            return null;
        }
        String namespace = hpa.getMetadata().getNamespace();
        try {
            // peek: no request for a built-in kind, even when the target is missing
            ScaleTarget scale = request ? scales.peek(namespace, ref) : scales.cachedOnly(namespace, ref);
            if (scale != null && scale.selector() != null && !scale.selector().isEmpty()) {
                Selector selector = parsed.of(scale.selector());
                index.controllers(HpaKey.of(hpa), namespace, selector, List.of());
                return new Recorded(hpa.getMetadata().getResourceVersion(), scale, selector);
            }
        } catch (ApiException | IllegalArgumentException e) {
            LOG.debug("selector of the target of {} not read: {}", HpaKey.of(hpa), e.getMessage());
        }
        return null;
    }

    /**
     * An HPA another replica syncs ({@code --sharding}): its selector counts in the AmbiguousSelector check of the HPAs
     * synced here, as upstream checks every HPA of the namespace. It is registered again (a handover forgot it here),
     * then unregistered if it was deleted meanwhile: the informer drops an HPA from its cache before it tells, so a
     * deletion is seen either by the second lookup or by the delete event, which comes after it. Nothing is recorded
     * when nothing changed since the last time: the same resourceVersion of the HPA (so the same target), an equal
     * scale of its target (so the same selector), and that selector still recorded in the index for this key (no
     * handover or deletion forgot it since).
     */
    public void refreshOther(HpaKey key, Function<HpaKey, HorizontalPodAutoscaler> lookup) {
        HorizontalPodAutoscaler hpa = lookup.apply(key);
        if (hpa == null) {
            recorded.remove(key);
            return;
        }
        Recorded last = recorded.get(key);
        if (last != null && unchanged(last, hpa) && index.records(key, last.selector())) {
            return;
        }
        index.register(key, key.namespace());
        Recorded now = record(hpa, true);
        if (now == null || now.hpaVersion() == null) {
            recorded.remove(key);
        } else {
            recorded.put(key, now);
        }
        if (lookup.apply(key) == null) {
            index.forget(key);
            recorded.remove(key);
        }
    }

    private boolean unchanged(Recorded last, HorizontalPodAutoscaler hpa) {
        if (!Objects.equals(last.hpaVersion(), hpa.getMetadata().getResourceVersion())) {
            return false;
        }
        try {
            return last.scale().equals(scales.peek(hpa.getMetadata().getNamespace(), hpa.getSpec().getScaleTargetRef()));
        } catch (ApiException e) {
            return false; // recorded again, which keeps the last selector when it cannot be read
        }
    }

    /** Forgets what was recorded last for the HPA (it is gone). */
    public void forget(HpaKey key) {
        recorded.remove(key);
    }
}
