package io.hpacontroller.controller;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.ApiCallStats;
import io.hpacontroller.api.ApiDiscovery;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.Parsed;
import io.hpacontroller.core.controls.HpaControls;
import io.hpacontroller.core.controls.SyncCadence;
import io.hpacontroller.core.normalize.HistoryStore;
import io.hpacontroller.core.port.HistoryWriter;
import io.hpacontroller.core.port.Ports;
import io.hpacontroller.core.reconcile.HpaSelectorIndex;
import io.hpacontroller.core.reconcile.Reconciler;
import io.hpacontroller.core.trace.ReconcileOutcome;
import io.hpacontroller.events.EventPublisher;
import io.hpacontroller.history.HistoryObjects;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.HpaControlsCache;
import io.hpacontroller.hpa.HpaStatusUpdater;
import io.hpacontroller.hpa.UnsyncedHpaSelectors;
import io.hpacontroller.metrics.MetricsBackends;
import io.hpacontroller.metrics.RestMetrics;
import io.hpacontroller.pods.PodCache;
import io.hpacontroller.pods.PodIndex;
import io.hpacontroller.scale.ScaleSubresource;
import io.hpacontroller.scale.WorkloadScales;
import io.hpacontroller.shadow.Shadow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live controller: informers for HPAs and Pods feed a {@link WorkQueue} of HPA keys; workers take
 * keys, read the HPA from the informer's cache and hand it to the core's {@link Reconciler}, whose
 * ports are the REST adapters of this package.
 *
 * <p>HPAs come from the APIs of {@link ControllerOptions#apis()} ({@link HpaApi}: autoscaling/v2 and the
 * mirror API, one informer each, the mirror's objects handed to the core as autoscaling/v2 model objects).
 * autoscaling/v2 HPAs are always watched: reconciled when that API is selected, else read only for the
 * selectors of their targets ({@link UnsyncedHpaSelectors}), which the mirror HPAs' AmbiguousSelector check
 * needs, and with {@code --shadow} also computed read-only and compared with the built-in controller's
 * decisions ({@link Shadow}).
 *
 * <p>With {@link ControllerOptions#persistHistory}, each reconciled HPA's history is restored from the cluster
 * before this process's first decision for it and kept there as it changes ({@link HistoryObjects}, the history port:
 * the reconcile asks it to restore at every sync, and it does the first time).
 *
 * <p>Each HPA is synced once per sync period at a phase of its own ({@link PhasedCadence}), whatever
 * the outcome: a sync that failed on the cluster's side waits for the next period like any other, as
 * upstream. The period is the flag's, or the HPA's own ({@link HpaControls#syncPeriod()}, read from its
 * controls whenever the informer delivers a new or changed HPA; the phase is then within that period). The
 * HPAs that existed when the process started are first synced at their phases within one period (the flag's)
 * of the start; an HPA created later is synced at once. A change of its spec (its generation moves) or of its
 * control annotations (they do not move the generation) is picked up at the next allowed time, never less
 * than a period after the HPA's last sync ({@link WorkQueue#addChanged}: as upstream's rate-limited requeue);
 * status writes, ours or anyone's, do not requeue. A sweep every sync period re-adds any HPA the queue does not
 * track (never earlier than its next due time), so no HPA can be lost. A deleted HPA is forgotten at once: its
 * queue entry, history, caches, and (for the listeners) its metric series and decision traces.
 */
public final class HorizontalController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HorizontalController.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** How long an idle worker waits for a key before it checks whether it should stop. */
    private static final Duration TAKE_TIMEOUT = Duration.ofMillis(200);

    private final ControllerOptions options;
    private final Clock clock;
    private final WorkQueue queue;
    private final Reconciler reconciler;
    private final HpaStatusUpdater statuses;
    private final EventPublisher events;
    private final HistoryStore histories = new HistoryStore();
    /** The histories kept in the cluster, null without {@code --persist-history}. */
    private final HistoryObjects kept;
    private final HpaControlsCache controls = new HpaControlsCache();
    /** When each key is due; it keeps the period of each HPA whose own differs from the flag's. */
    private final PhasedCadence cadence;
    /** Reads the metrics APIs' APIServices once the workers start ({@link MetricsBackends}). */
    private final KubeApi api;
    private final HpaSelectorIndex selectors = new HpaSelectorIndex();
    private final Map<String, PodIndex> podIndexes = new LinkedHashMap<>();
    private final PodCache pods;
    private final WorkloadScales workloads;
    private final WriteGate gate;
    private final Informers informers;
    /** Turns the informers' events and the sweep into queued keys. */
    private final QueueFeed feed;
    /** Records the selectors of the HPAs not synced here: autoscaling/v2 ones left to the built-in controller, other replicas' ones. */
    private final UnsyncedHpaSelectors unsynced;
    /** Shadow mode, null without it. */
    private final Shadow shadow;
    private final BuiltinHpasLeft builtinLeft;
    private final SyncListeners listeners = new SyncListeners();
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger busy = new AtomicInteger();
    private volatile SyncClaims claims = SyncClaims.ALL;

    /**
     * Told about every reconcile (on the worker thread), and about every HPA that is gone (a report without an
     * outcome, on the informer's or a worker's thread, maybe more than once): keep it quick.
     */
    public interface SyncListener {
        void onSync(SyncReport report);
    }

    public HorizontalController(KubernetesClient client, ControllerOptions options, Clock clock, WriteGate gate) {
        this(client, options, clock, Ticker.SYSTEM, gate);
    }

    /**
     * @param clock  wall-clock time for the decisions (stabilization windows, status and event times)
     * @param ticker monotonic time for the sync cadence
     */
    public HorizontalController(KubernetesClient client, ControllerOptions options, Clock clock, Ticker ticker, WriteGate gate) {
        Objects.requireNonNull(client);
        this.options = Objects.requireNonNull(options);
        this.clock = Objects.requireNonNull(clock);
        this.gate = Objects.requireNonNull(gate);
        // when this process started: an HPA created after it is new, and synced at once
        Instant processStart = ProcessHandle.current().info().startInstant().orElseGet(clock::instant);
        long sinceStart = Math.max(0, Duration.between(processStart, clock.instant()).toNanos());
        this.cadence = new PhasedCadence(options.syncPeriod(), clock, ticker, options.freshSpread());
        this.queue = new WorkQueue(ticker, cadence, ticker.nanos() - sinceStart);
        this.api = new KubeApi(client, options.apiTimeout());
        KubeApi writes = new KubeApi(client, gate.requestTimeout(options.apiTimeout()));
        ApiDiscovery discovery = new ApiDiscovery(api, clock);
        this.events = new EventPublisher(writes, clock, gate);
        if (options.namespaces().isEmpty()) {
            podIndexes.put(PodCache.ALL, new PodIndex());
        } else {
            options.namespaces().forEach(ns -> podIndexes.put(ns, new PodIndex()));
        }
        this.pods = new PodCache(podIndexes);
        this.informers = new Informers(client, options, podIndexes);
        this.workloads = new WorkloadScales(client, options.namespaces());
        ScaleSubresource scales = new ScaleSubresource(api, writes, discovery, gate, workloads);
        RestMetrics metrics = new RestMetrics(api, discovery, options.metricsLimits());
        this.kept = options.persistHistory() ? new HistoryObjects(api, writes, gate, histories, events, options.syncPeriod()) : null;
        this.statuses = new HpaStatusUpdater(writes, gate, clock);
        this.reconciler = new Reconciler(options.decisions(), new Ports(scales, pods, metrics, statuses, events,
                kept == null ? HistoryWriter.NONE : kept, selectors), histories, clock);
        this.unsynced = new UnsyncedHpaSelectors(scales, selectors);
        this.shadow = options.shadow() ? new Shadow(options.decisions(), scales, pods, metrics, selectors, clock, options.workers()) : null;
        this.feed = new QueueFeed(queue, informers, options, selectors, controls, processStart, shadow, unsynced, this::forget);
        if (shadow != null) {
            shadow.forgetThrough(this::forget);
        }
        this.builtinLeft = new BuiltinHpasLeft(feed, options, () -> informers.count(HpaApi.BUILTIN));
    }

    /** Shadow mode's comparisons; null without {@code --shadow}. */
    public Shadow shadow() {
        return shadow;
    }

    /** With {@code --sharding}: the HPAs this replica queues and syncs (set before the informers start); every HPA without. */
    public void claimThrough(SyncClaims claims) {
        this.claims = Objects.requireNonNull(claims);
        feed.claimThrough(claims);
    }

    /** With {@code --sharding}: what the membership tells which HPAs this replica gained and lost. */
    public OwnedKeys ownedKeys() {
        return feed;
    }

    public void addListener(SyncListener listener) {
        listeners.add(listener);
    }

    /** Starts the informers (listing and watching) without waiting for them to sync. */
    public void startInformers() {
        startHpaInformers();
        startPodInformers();
    }

    /** Starts the HPA informers only (the bench measures them apart from the pods). */
    public void startHpaInformers() {
        informers.startHpas(builtinLeft);
    }

    /** Starts the Pod informers only. */
    public void startPodInformers() {
        informers.startPods();
    }

    /** Whether every informer has listed its objects once. */
    public boolean isSynced() {
        return informers.isSynced();
    }

    /** Whether the HPA informers have listed the HPAs once. */
    public boolean hpaInformersSynced() {
        return informers.hpasSynced();
    }

    /** Waits for the informers to sync. */
    public boolean awaitSynced(Duration timeout) throws InterruptedException {
        return informers.awaitSynced(timeout);
    }

    /** Starts the workers and the sweep; informers must be started. */
    public synchronized void startWorkers() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        if (!options.apis().contains(HpaApi.BUILTIN)) {
            // before any mirror HPA is reconciled: the built-in HPAs' selectors, for its AmbiguousSelector check
            informers.hpas(HpaApi.BUILTIN).forEach(unsynced::refresh);
        }
        List<HorizontalPodAutoscaler> reconciled = reconciledHpas();
        unsynced.primeAll(reconciled, workloads::startedSynced); // and every HPA's own: the first syncs count them all
        if (shadow != null) {
            shadow.start();
        }
        builtinLeft.start();
        cadence.metricsServedBy(MetricsBackends.read(api));
        if (kept != null) {
            kept.prefetch(reconciled, options.namespaces(), clock.millis());
        }
        workers.clear();
        for (int i = 0; i < options.workers(); i++) {
            Thread t = new Thread(this::work, "hpa-worker-" + i);
            t.setDaemon(true);
            t.start();
            workers.add(t);
        }
        feed.startSweeping();
    }

    /** The HPAs in the caches that this instance reconciles (not the built-in ones beside the mirror API). */
    private List<HorizontalPodAutoscaler> reconciledHpas() {
        List<HorizontalPodAutoscaler> hpas = new ArrayList<>();
        if (options.apis().contains(HpaApi.BUILTIN)) {
            hpas.addAll(informers.hpas(HpaApi.BUILTIN));
        }
        hpas.addAll(informers.hpas(HpaApi.MIRROR));
        return hpas;
    }

    /** Starts everything and waits for the informers to sync before the workers start. */
    public void start(Duration syncTimeout) throws InterruptedException {
        startInformers();
        if (!awaitSynced(syncTimeout)) {
            throw new IllegalStateException("informers did not sync within " + syncTimeout);
        }
        startWorkers();
    }

    private void work() {
        while (running.get()) {
            Optional<WorkQueue.Item> item;
            try {
                item = queue.take(TAKE_TIMEOUT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            item.ifPresent(this::sync);
        }
    }

    /**
     * Syncs every HPA that is due now, one after the other on the calling thread, and returns what happened. The workers
     * do the same, one key at a time; tests drive the cadence with this and a manual ticker.
     */
    List<SyncReport> syncDue() {
        List<SyncReport> reports = new ArrayList<>();
        for (Optional<WorkQueue.Item> item = queue.poll(); item.isPresent(); item = queue.poll()) {
            SyncReport report = sync(item.get());
            if (report != null) {
                reports.add(report);
            }
        }
        return reports;
    }

    /** One sync of one key, requeued at its next due time whatever happened; null for an autoscaling/v2 HPA only read for its selector. */
    private SyncReport sync(WorkQueue.Item item) {
        HpaKey key = item.key();
        if (!claims.begin(key, item.takenAt())) {
            feed.refused(key);
            return null;
        }
        busy.incrementAndGet();
        try {
            return process(key, item.waitedNanos());
        } catch (Throwable t) {
            LOG.error("reconcile of {} failed unexpectedly; trying again next sync period", key, t);
            return new SyncReport(key, null, 0, 0, 0, 0, item.waitedNanos());
        } finally {
            busy.decrementAndGet();
            queue.done(key); // before the drain may end: a handover reads the due it leaves
            claims.end(key);
        }
    }

    private SyncReport process(HpaKey key, long waitedNanos) {
        HorizontalPodAutoscaler hpa = informers.lookup(key);
        if (hpa == null) {
            return forget(key);
        }
        if (!feed.reconciledHere(hpa)) {
            unsynced.refresh(hpa);
            return null;
        }
        ApiCallStats.reset();
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        SyncInput in = SyncInput.of(key, hpa, statuses::current, controls::of);
        ReconcileOutcome outcome = reconciler.reconcile(in.hpa(), in.controls());
        long total = System.nanoTime() - start;
        long cpu = THREADS.getCurrentThreadCpuTime() - cpuStart;
        cadence.synced(key, outcome.trace(), in.controls() instanceof Parsed.Valid<HpaControls> v
                && v.value().cadenceOr(options.syncCadence()) == SyncCadence.FRESH);
        SyncReport report = listeners.tell(new SyncReport(key, outcome, total, cpu, ApiCallStats.nanos(), ApiCallStats.calls(), waitedNanos));
        if (informers.lookup(key) == null) {
            // deleted while it was reconciled (the informer removes it from its cache before it tells): drop what the
            // reconcile and the report may have re-created after the deletion was handled
            forget(key);
        }
        return report;
    }

    /**
     * The one path for an HPA that is gone, whatever noticed it: the informer's delete ({@link QueueFeed#onDelete}), a
     * worker that found it missing from the cache before or after its reconcile, or shadow mode that compared it after
     * it was deleted. Its queue state (period, pace), history, selector, controls, status and kept history go, the
     * shadow's too, and the listeners hear of it when it is reconciled here (that report is returned, else null).
     * Each store's forget is idempotent: a deletion may come through more than one trigger.
     */
    private SyncReport forget(HpaKey key) {
        queue.forget(key);
        reconciler.forget(key);
        statuses.forget(key);
        controls.forget(key);
        unsynced.forget(key);
        if (kept != null) {
            kept.forget(key);
        }
        if (shadow != null && HpaApi.ofKey(key) == HpaApi.BUILTIN) {
            shadow.forget(key);
        }
        return feed.reconciledHere(key) ? listeners.tell(SyncReport.gone(key)) : null;
    }

    /** Stops taking work and lets in-flight reconciles finish (up to the timeout); the informers and the queue keep on: {@link #startWorkers} resumes. */
    public synchronized void stopWorkers(Duration timeout) {
        running.set(false);
        queue.wakeUp();
        if (shadow != null) {
            shadow.stop(timeout);
        }
        feed.stopSweeping();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : workers) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        workers.clear();
    }

    /** Whether the workers are running. */
    public boolean isWorking() {
        return running.get();
    }

    /** Waits until the events recorded so far are posted (or dropped), up to the timeout. */
    public void flushEvents(Duration timeout) throws InterruptedException {
        events.flush(timeout);
    }

    /** Shuts down: stops taking work, lets in-flight reconciles finish (up to the timeout), posts the pending events, stops the informers. */
    public void stop(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        stopWorkers(timeout);
        queue.shutDown();
        try {
            events.flush(Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        informers.stop();
        workloads.stop();
        events.close();
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(10));
    }

    // ---- views for health, metrics and tests ----

    public WorkQueue queue() {
        return queue;
    }

    /** What the syncs taught of the metrics pipelines (the fresh cadence's estimates, for the learned-cadence gauges). */
    public io.hpacontroller.core.cadence.MetricsPipelines pipelines() {
        return cadence.pipelines();
    }

    /** The HPAs this controller reconciles (of the APIs of {@code --hpa-apis}). */
    public int hpaCount() {
        int builtin = options.apis().contains(HpaApi.BUILTIN) ? informers.count(HpaApi.BUILTIN) : 0;
        return builtin + informers.count(HpaApi.MIRROR);
    }

    /** The autoscaling/v2 HPAs left to the built-in controller: not of an API of {@code --hpa-apis}. */
    public int builtinHpasLeft() {
        return builtinLeft.count();
    }

    /** For tests: how many HPAs each per-HPA store holds something for (a deleted HPA leaves nothing behind in any). */
    Map<String, Integer> heldPerHpa() {
        Map<String, Integer> held = new LinkedHashMap<>();
        held.put("queue", queue.size());
        held.put("histories", histories.size());
        held.put("predictions", reconciler.predicting());
        held.put("selectors", selectors.size());
        held.put("controls", controls.size());
        held.put("periods", cadence.ownPeriods());
        held.put("statuses", statuses.size());
        held.put("kept", kept == null ? 0 : kept.size());
        held.put("shadow", shadow == null ? 0 : shadow.hpasHeld());
        return held;
    }

    /** For tests: the HPA of this key as the informer's cache holds it, null when it holds none. */
    HorizontalPodAutoscaler cached(HpaKey key) {
        return informers.lookup(key);
    }

    public int podCount() {
        return pods.size();
    }

    public int busyWorkers() {
        return busy.get();
    }

    public HistoryStore histories() {
        return histories;
    }

    /** Whether the histories are written to the cluster: null without {@code --persist-history}, false while their CRD is missing. */
    public Boolean historyPersisted() {
        return kept == null ? null : kept.persisted();
    }

    /** Events posted (or bumped) so far, and events dropped because their queue was full. */
    public long eventsPosted() {
        return events.posted();
    }

    public long eventsDropped() {
        return events.dropped();
    }

    /** Status writes that failed, of HPAs of this API. */
    public long statusWriteFailures(HpaApi api) {
        return statuses.failures(api);
    }

    /** The HPAs (keys) whose status another controller wrote lately: the ConflictingController condition. */
    public Set<HpaKey> conflictingWriters() {
        return statuses.conflicting();
    }

    /** Events not written because their HPA had used up its event rate (client-go's spam filter). */
    public long eventsRateLimited() {
        return events.rateLimited();
    }
}
