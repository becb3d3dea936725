package io.hpacontroller.shadow;

import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingPolicy;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBehavior;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerStatus;
import io.hpacontroller.api.KubeTime;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.labels.Selector;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.ScaleTarget;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.normalize.HpaHistory;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.core.port.EventRecorder;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.core.port.MetricsSource;
import io.hpacontroller.core.port.PodSource;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.port.ScaleClient;
import io.hpacontroller.core.port.StatusWriter;
import io.hpacontroller.core.reconcile.ControllerConfig;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.port.SelectorOwnership;
import io.hpacontroller.core.reconcile.HpaSelectorIndex;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.hpa.HpaApi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Shadow mode ({@code --shadow}): the autoscaling/v2 HPAs that the built-in controller reconciles are
 * computed here too, read-only, through the same core, and each decision is compared with the built-in's.
 * Nothing is written: the scale writes, status writes and events of the core go to ports that drop them.
 *
 * <p><b>When.</b> The built-in controller writes an HPA's status at the end of each sync that changed it.
 * Each such write is a shadow sync, at once, so both decisions are taken from the same metrics and pods
 * (metrics-server's samples do not change within the fraction of a second between them), and the shadow's
 * is compared with the {@code status.desiredReplicas} just written. The shadow starts from the replica count
 * the built-in controller started from ({@code status.currentReplicas}), not from the target's, which the
 * built-in controller may have just changed; after a scale-up it leaves out the pods that scale-up started
 * (pods not yet started, or started in the second of {@code lastScaleTime} or later): counted as unready
 * pods, they would pull the shadow's proposal back into the tolerance band; after a scale-down it reads the pods
 * once the removed ones are gone from the cache ({@link PodsAsDecided}). A sync whose status the
 * built-in controller did not change is not seen; it decided what it decided before.
 *
 * <p><b>History.</b> The behavior policies count the scale changes made within their periods, and those were
 * made by the built-in controller, not by the shadow: the shadow's history of scale changes is the built-in's,
 * read from its status ({@code lastScaleTime} moves with every rescale, from {@code currentReplicas} to
 * {@code desiredReplicas}), recorded when seen, after the sync that compares that decision. The shadow's own
 * would-be changes are never recorded. Its recommendations (the stabilization windows) are its own, one per
 * sync, as the built-in controller records one per sync. What happened before the shadow first saw an HPA is
 * not known, so a comparison within the HPA's longest look-back (stabilization window or policy period) after
 * that is marked as warming up.
 *
 * <p>As the built-in controller, the shadow's AmbiguousSelector check counts autoscaling/v2 HPAs only (the
 * built-in controller does not see mirror HPAs). Shadow syncs run only while the workers do (on the leader).
 */
public final class Shadow implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Shadow.class);
    /** Scale changes older than this cannot count any more (the longest policy period is 30 minutes). */
    private static final long LEDGER_MILLIS = Duration.ofHours(1).toMillis();

    /**
     * One comparison, made right after the built-in controller wrote the HPA's status.
     *
     * @param currentReplicas the replica count both decided from (the built-in's status.currentReplicas)
     * @param builtinDesired  the built-in's status.desiredReplicas
     * @param shadowDesired   what this controller decided
     * @param outcome         this controller's decision
     * @param builtinStatus   the status the built-in controller wrote
     * @param known           how long the shadow has seen this HPA
     * @param lookBack        how far back its decisions look (stabilization windows, policy periods)
     */
    public record Comparison(String namespace, String name, int currentReplicas, int builtinDesired, int shadowDesired,
                             ReconcileOutcome outcome, HorizontalPodAutoscalerStatus builtinStatus, Duration known, Duration lookBack) {

        /** Both want the same count, and this controller computed one where the built-in did. */
        public boolean agrees() {
            return builtinDesired == shadowDesired && !(failed() && builtinComputed());
        }

        /** The shadow's history does not reach back as far as the decision looks. */
        public boolean warmingUp() {
            return known.compareTo(lookBack) < 0;
        }

        private boolean failed() {
            return outcome.error() != ReconcileOutcome.ErrorKind.NONE;
        }

        private boolean builtinComputed() {
            HorizontalPodAutoscalerCondition active = condition(builtinStatus, "ScalingActive");
            return active != null && "True".equals(active.getStatus());
        }

        /** Why this controller decides what it decides, in its conditions' words. */
        public String reason() {
            if (failed()) {
                return "it cannot compute a replica count: " + outcome.errorMessage();
            }
            return describe(outcome.status(), outcome.rescaleReason());
        }

        /** What the built-in controller's conditions say. */
        public String builtinReason() {
            return describe(builtinStatus, "");
        }

        private static String describe(HorizontalPodAutoscalerStatus status, String rescaleReason) {
            List<String> parts = new ArrayList<>();
            if (rescaleReason != null && !rescaleReason.isEmpty()) {
                parts.add(rescaleReason);
            }
            for (String type : List.of("AbleToScale", "ScalingActive", "ScalingLimited")) {
                HorizontalPodAutoscalerCondition c = condition(status, type);
                if (c != null) {
                    parts.add(type + "=" + c.getStatus() + " " + c.getReason());
                }
            }
            return String.join("; ", parts);
        }

        private static HorizontalPodAutoscalerCondition condition(HorizontalPodAutoscalerStatus status, String type) {
            return status == null || status.getConditions() == null ? null
                    : status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
        }
    }

    /** Told about every comparison (on a shadow thread) and every HPA that is gone. */
    public interface Listener {
        void onComparison(Comparison comparison);

        void onGone(String namespace, String name);
    }

    /** A status write of the built-in controller. */
    private record Observation(HorizontalPodAutoscaler hpa, boolean rescaled, long observedAt) {
    }

    /** A scale change the built-in controller made. */
    private record BuiltinScale(boolean up, int change, long at) {
    }

    private final ControllerConfig config;
    private final Clock clock;
    private final int threads;
    private final HistoryStore histories = new HistoryStore();
    private final ReadOnlyScales scales;
    private final PodsAsDecided pods;
    private final Reconciler reconciler;
    private final Map<HpaKey, Deque<Observation>> pending = new ConcurrentHashMap<>();
    private final Set<HpaKey> running = ConcurrentHashMap.newKeySet();
    private final Map<HpaKey, List<BuiltinScale>> ledger = new ConcurrentHashMap<>();
    private final Map<HpaKey, Long> firstSeen = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private volatile ExecutorService executor;
    private volatile Consumer<HpaKey> forgetPath = this::forget;
    private final long startedAt;

    /**
     * @param scales  reads the targets' scale (never written through here)
     * @param index   the selector index of every watched HPA; the shadow's check counts the autoscaling/v2 ones
     */
    public Shadow(ControllerConfig config, ScaleClient scales, PodSource pods, MetricsSource metrics, HpaSelectorIndex index, Clock clock, int threads) {
        this.config = config;
        this.clock = clock;
        this.threads = threads;
        this.scales = new ReadOnlyScales(scales);
        this.pods = new PodsAsDecided(pods);
        this.reconciler = new Reconciler(config, new Ports(this.scales, this.pods, metrics, NO_STATUS, NO_EVENTS, HistoryWriter.NONE, builtinOnly(index)),
                histories, clock);
        this.startedAt = clock.millis();
    }

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    /**
     * The built-in controller's HPA was seen for the first time: the shadow's history of it starts now, or
     * at its creation when that was after the shadow started (then the shadow saw everything it did).
     */
    public void added(HorizontalPodAutoscaler hpa) {
        long now = clock.millis();
        long created = KubeTime.parse(hpa.getMetadata().getCreationTimestamp(), Long.MIN_VALUE);
        // created after the shadow started (creation times are in whole seconds): it saw every change, its
        // history is complete, as if it had been watching forever
        firstSeen.putIfAbsent(HpaKey.of(hpa), created >= startedAt / 1000 * 1000 ? 0L : now);
    }

    /** The informer delivered an update: a changed status is a sync of the built-in controller to compare with. */
    public void updated(HorizontalPodAutoscaler old, HorizontalPodAutoscaler hpa) {
        HpaKey key = HpaKey.of(hpa);
        firstSeen.putIfAbsent(key, clock.millis());
        HorizontalPodAutoscalerStatus before = old.getStatus();
        HorizontalPodAutoscalerStatus after = hpa.getStatus();
        if (executor == null || after == null || after.getDesiredReplicas() == null || Objects.equals(before, after)) {
            return;
        }
        boolean rescaled = after.getLastScaleTime() != null
                && !Objects.equals(after.getLastScaleTime(), before == null ? null : before.getLastScaleTime());
        pending.compute(key, (k, q) -> {
            Deque<Observation> queue = q == null ? new ArrayDeque<>() : q;
            queue.add(new Observation(hpa, rescaled, clock.millis()));
            return queue;
        });
        schedule(key);
    }

    /** The HPA is gone: nothing about it is kept, and the listeners are told (the controller's forget path calls this). */
    public void forget(HpaKey key) {
        pending.remove(key);
        ledger.remove(key);
        firstSeen.remove(key);
        histories.forget(key);
        listeners.forEach(l -> l.onGone(key.namespace(), key.name()));
    }

    /** A comparison that finds its HPA deleted meanwhile forgets it through {@code forget} (the controller's one path). */
    public void forgetThrough(Consumer<HpaKey> forget) {
        this.forgetPath = forget;
    }

    /** HPAs of which the shadow holds anything (for tests: a deleted HPA leaves nothing behind). */
    public int hpasHeld() {
        Set<HpaKey> keys = new HashSet<>(pending.keySet());
        keys.addAll(ledger.keySet());
        keys.addAll(firstSeen.keySet());
        return keys.size() + histories.size();
    }

    private void schedule(HpaKey key) {
        ExecutorService e = executor;
        if (e != null && running.add(key)) {
            try {
                e.execute(() -> drain(key));
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                running.remove(key);
            }
        }
    }

    /** Syncs the key's observations in order, one at a time. */
    private void drain(HpaKey key) {
        try {
            for (Observation o = next(key); o != null; o = next(key)) {
                try {
                    sync(key, o);
                } catch (RuntimeException ex) {
                    LOG.error("shadow sync of {} failed unexpectedly", key, ex);
                }
            }
        } finally {
            running.remove(key);
            if (pending.containsKey(key)) {
                schedule(key);
            }
        }
    }

    private Observation next(HpaKey key) {
        Observation[] out = new Observation[1];
        pending.computeIfPresent(key, (k, q) -> {
            out[0] = q.poll();
            return q.isEmpty() ? null : q;
        });
        return out[0];
    }

    private void sync(HpaKey key, Observation o) {
        HorizontalPodAutoscalerStatus status = o.hpa().getStatus();
        int current = status.getCurrentReplicas() == null ? 0 : status.getCurrentReplicas();
        useBuiltinScaleHistory(key);
        ReconcileOutcome outcome;
        scales.startFrom(current);
        if (o.rescaled() && status.getDesiredReplicas() > current) {
            pods.beforeScaleUp(KubeTime.parse(status.getLastScaleTime(), Long.MAX_VALUE));
        } else if (o.rescaled() && status.getDesiredReplicas() < current) {
            pods.afterScaleDown(status.getDesiredReplicas());
        }
        try {
            // the built-in controller ignores our control annotations: so does its shadow
            outcome = reconciler.reconcile(o.hpa(), Parsed.valid(HpaControls.NONE));
        } finally {
            scales.startFrom(null);
            pods.asTheyAre();
        }
        if (o.rescaled()) {
            recordBuiltinScale(key, current, status.getDesiredReplicas(), o.observedAt());
        }
        long now = clock.millis();
        Comparison c = new Comparison(o.hpa().getMetadata().getNamespace(), o.hpa().getMetadata().getName(), current,
                status.getDesiredReplicas(), outcome.desiredReplicas(), outcome, status,
                Duration.ofMillis(now - firstSeen.getOrDefault(key, now)), lookBack(o.hpa()));
        for (Listener l : listeners) {
            try {
                l.onComparison(c);
            } catch (RuntimeException e) {
                LOG.warn("shadow listener failed", e);
            }
        }
        if (!firstSeen.containsKey(key)) {
            forgetPath.accept(key); // deleted while it was compared: drop what this sync re-created after the deletion was handled
        }
    }

    /** The shadow's history keeps its recommendations and takes the built-in controller's scale changes. */
    private void useBuiltinScaleHistory(HpaKey key) {
        HpaHistory own = histories.of(key);
        boolean seen = own.seen();
        List<HpaHistory.Recommendation> recommendations = own.recommendations();
        histories.forget(key);
        HpaHistory history = histories.of(key);
        if (seen) {
            history.setRecommendations(recommendations);
        }
        for (BuiltinScale s : ledger.getOrDefault(key, List.of())) {
            history.addScaleEvent(s.up(), s.change(), s.at());
        }
    }

    private void recordBuiltinScale(HpaKey key, int from, int to, long at) {
        if (from == to) {
            return;
        }
        ledger.compute(key, (k, list) -> {
            List<BuiltinScale> next = new ArrayList<>(list == null ? List.of() : list);
            next.removeIf(s -> s.at() < at - LEDGER_MILLIS);
            next.add(new BuiltinScale(to > from, Math.abs(to - from), at));
            return List.copyOf(next);
        });
    }

    /** The longest of the HPA's stabilization windows and policy periods. */
    private Duration lookBack(HorizontalPodAutoscaler hpa) {
        long seconds = config.downscaleStabilization().toSeconds();
        HorizontalPodAutoscalerBehavior behavior = hpa.getSpec() == null ? null : hpa.getSpec().getBehavior();
        if (behavior != null) {
            for (HPAScalingRules rules : new HPAScalingRules[] {behavior.getScaleUp(), behavior.getScaleDown()}) {
                if (rules == null) {
                    continue;
                }
                if (rules.getStabilizationWindowSeconds() != null) {
                    seconds = Math.max(seconds, rules.getStabilizationWindowSeconds());
                }
                for (HPAScalingPolicy p : rules.getPolicies() == null ? List.<HPAScalingPolicy>of() : rules.getPolicies()) {
                    if (p != null && p.getPeriodSeconds() != null) {
                        seconds = Math.max(seconds, p.getPeriodSeconds());
                    }
                }
            }
        }
        return Duration.ofSeconds(seconds);
    }

    /** Starts taking observations (the workers run). */
    public synchronized void start() {
        if (executor == null) {
            executor = Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "hpa-shadow");
                t.setDaemon(true);
                return t;
            });
        }
    }

    /** Stops taking observations and lets the syncs in flight finish (up to the timeout). */
    public synchronized void stop(Duration timeout) {
        ExecutorService e = executor;
        executor = null;
        if (e != null) {
            e.shutdown();
            try {
                e.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        pending.clear();
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }

    // ---- the ports that write nothing ----
    private static final StatusWriter NO_STATUS = (hpa, status) -> { };

    private static final EventRecorder NO_EVENTS = (hpa, type, reason, message) -> { };

    /** The AmbiguousSelector check as the built-in controller makes it: autoscaling/v2 HPAs only. */
    private static SelectorOwnership builtinOnly(HpaSelectorIndex index) {
        return new SelectorOwnership() {
            @Override
            public Controllers controllers(HpaKey hpaKey, String namespace, Selector selector, List<PodInfo> pods) {
                return index.controllers(hpaKey, namespace, selector, pods, k -> HpaApi.ofKey(k) == HpaApi.BUILTIN);
            }

            @Override
            public void forget(HpaKey hpaKey) {
                // the index belongs to the controller's informers
            }
        };
    }

    /** Reads the target's scale, starting from the built-in's replica count; writes nothing. */
    private static final class ReadOnlyScales implements ScaleClient {
        private final ScaleClient reads;
        private final ThreadLocal<Integer> startFrom = new ThreadLocal<>();

        ReadOnlyScales(ScaleClient reads) {
            this.reads = reads;
        }

        void startFrom(Integer replicas) {
            if (replicas == null) {
                startFrom.remove();
            } else {
                startFrom.set(replicas);
            }
        }

        @Override
        public ScaleTarget get(String namespace, CrossVersionObjectReference target) throws ApiException {
            ScaleTarget scale = reads.get(namespace, target);
            Integer from = startFrom.get();
            return from == null ? scale : new ScaleTarget(from, scale.statusReplicas(), scale.selector(), scale.resourceVersion());
        }

        @Override
        public void update(String namespace, CrossVersionObjectReference target, ScaleTarget current, int replicas) {
            // the built-in controller scales; the shadow only decides
        }
    }
}
