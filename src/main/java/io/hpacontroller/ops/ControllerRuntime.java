package io.hpacontroller.ops;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.WriteGate;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.controller.HorizontalController;
import io.hpacontroller.controller.Ticker;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.shadow.ShadowComparisons;
import io.hpacontroller.shard.ShardMetrics;
import io.hpacontroller.shard.Sharding;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

/**
 * The controller as it runs in a cluster: the live {@link HorizontalController}, its Prometheus
 * metrics and decisions ({@code /decisions/NAMESPACE/NAME}; over HTTPS for the users the API server allows, see
 * {@link MetricsServing}), its health endpoints, and (optionally) leader election gating its workers and writes.
 *
 * <p>With leader election, the workers start only while this instance holds a fresh lease (checked
 * together with starting them, so a lease lost meanwhile cannot start workers on a standby), and every
 * write is fenced on the lease's last renewal (see {@link LeaderElection#holdsFreshLease}). When the
 * lease is lost, the workers stop and the runtime's exit gets status 1: {@code run} ends the process with
 * it, as kube-controller-manager does, and the pod restarts as a standby.
 *
 * <p>Shutdown (SIGTERM) stops taking work, lets in-flight reconciles finish, posts the pending events,
 * closes the writes, releases the lease so a standby takes over at once, then stops the informers and
 * the servers.
 */
public final class ControllerRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ControllerRuntime.class);
    static final Duration SYNC_TIMEOUT = Duration.ofMinutes(10);
    /** Exit status when the lease is lost. */
    static final int LOST_LEASE = 1;

    /**
     * @param options         the controller's options
     * @param election        leader election settings, null to run without it
     * @param metricsAddress  where /metrics and /decisions are served, null for nowhere
     * @param metricsServing  how: HTTPS with delegated authentication and authorization, or plain HTTP
     * @param healthAddress   where /healthz and /readyz are served (plain HTTP), null for nowhere
     * @param shutdownTimeout how long in-flight reconciles may take to finish on shutdown
     * @param sharding        {@code --sharding}: the replicas share the HPAs on a ring of membership Leases (no leader
     *                        election then: {@code election} is null); null without it
     */
    public record Settings(ControllerOptions options, LeaseSettings election, InetSocketAddress metricsAddress,
                           MetricsServing metricsServing, InetSocketAddress healthAddress, Duration shutdownTimeout,
                           LeaseSettings sharding) {

        /** Without sharding. */
        public Settings(ControllerOptions options, LeaseSettings election, InetSocketAddress metricsAddress,
                        MetricsServing metricsServing, InetSocketAddress healthAddress, Duration shutdownTimeout) {
            this(options, election, metricsAddress, metricsServing, healthAddress, shutdownTimeout, null);
        }

        /** {@code --sharding}: the replicas share the HPAs on the ring of membership Leases named and timed as the election's Lease. */
        public Settings sharded() {
            return new Settings(options, null, metricsAddress, metricsServing, healthAddress, shutdownTimeout, Objects.requireNonNull(election));
        }
    }

    /** How long a TokenReview or SubjectAccessReview of a request to the metrics port may take. */
    static final Duration REVIEW_TIMEOUT = Duration.ofSeconds(10);

    private final Settings settings;
    private final KubernetesClient client;
    private final WriteGate gate;
    private final HorizontalController controller;
    private final LeaderElection election;
    /** {@code --sharding}: this replica's membership and claims, null without. */
    private final Sharding sharding;
    private final IntConsumer exit;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final RecentDecisions decisions = new RecentDecisions();
    /** Guards starting and stopping the workers against leadership changes and shutdown. */
    private final Object workers = new Object();
    private boolean closed;
    private boolean lost;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile CompletableFuture<Boolean> workerStart = CompletableFuture.completedFuture(false);
    private EndpointServer metricsServer;
    private HealthServer healthServer;
    private boolean serving;

    /**
     * @param exit what to do with the exit status when the lease is lost, called once on the election thread:
     *             {@code run} ends with it; a test records it (a test never ends its JVM)
     */
    public ControllerRuntime(KubernetesClient client, Settings settings, IntConsumer exit) {
        this(client, settings, exit, Clock.systemUTC(), Ticker.SYSTEM);
    }

    /** @param ticker monotonic time for the lease */
    ControllerRuntime(KubernetesClient client, Settings settings, IntConsumer exit, Clock clock, Ticker ticker) {
        this.settings = settings;
        this.client = client;
        this.exit = exit;
        LeaseSettings lease = settings.election();
        LeaseSettings shard = settings.sharding();
        this.sharding = shard == null ? null : new Sharding(new KubeApi(client, shard.renewDeadline()), shard, clock, ticker);
        if (sharding != null) {
            this.election = null;
            this.gate = WriteGate.whileLeading(sharding::holdsFreshLease, sharding.writeTimeout());
        } else if (lease == null) {
            this.election = null;
            this.gate = WriteGate.alwaysOpen();
        } else {
            this.election = new LeaderElection(new KubeLeaseStore(new KubeApi(client, lease.renewDeadline()), lease.namespace(), lease.name()),
                    lease, clock, ticker, this::startWorkersWhenSynced, this::lostLease);
            this.gate = WriteGate.whileLeading(election::holdsFreshLease, lease.writeTimeout());
        }
        this.controller = new HorizontalController(client, settings.options(), clock, gate);
        if (sharding != null) {
            controller.claimThrough(sharding.claims());
            sharding.schedule(controller.queue(), controller.ownedKeys());
            sharding.flushBeforeRenewing(controller::flushEvents);
            ShardMetrics.register(registry, sharding, controller, gate);
        }
        controller.addListener(new ControllerMetrics(registry, controller, this::isLeader, lease == null ? "" : lease.name()));
        controller.addListener(new DecisionLog());
        controller.addListener(decisions);
        if (controller.shadow() != null) {
            controller.shadow().addListener(new ShadowComparisons(registry));
        }
    }

    /**
     * Serves /metrics and the health probes, before the controller starts: alive, not ready (the
     * informers have not synced), e.g. while the API server cannot be reached yet. {@link #start} calls it.
     */
    private interface Listener<T> {
        T listen(InetSocketAddress address) throws IOException;
    }

    /** The server listening on {@code address}; one that cannot is an error naming the flag and the port taken. */
    private static <T> T listening(String flag, InetSocketAddress address, Listener<T> listener) throws IOException {
        try {
            return listener.listen(address);
        } catch (IOException e) {
            String host = address.getAddress() == null || address.getAddress().isAnyLocalAddress() ? "" : address.getHostString();
            throw new IOException("cannot listen on " + flag + " " + host + ":" + address.getPort() + ": " + e.getMessage(), e);
        }
    }

    public synchronized void serve() throws IOException {
        if (serving) {
            return;
        }
        serving = true;
        JvmMetrics.builder().register(registry);
        if (settings.metricsAddress() != null) {
            MetricsEndpoint metrics = new MetricsEndpoint(registry);
            DecisionsEndpoint decisionsEndpoint = new DecisionsEndpoint(decisions, controller.histories(), settings.options(), this::isLeader,
                    sharding == null ? null : sharding.claims()::ownerOf);
            EndpointServer.Handler endpoints = request -> request.path().equals(MetricsEndpoint.PATH)
                    ? metrics.handle(request) : decisionsEndpoint.handle(request);
            SSLContext tls = null;
            MetricsServing serving = settings.metricsServing();
            if (serving.secure()) {
                try {
                    tls = serving.certificate().context();
                } catch (GeneralSecurityException e) {
                    throw new IOException("cannot serve TLS with the certificate: " + e.getMessage(), e);
                }
                endpoints = new DelegatedAuth(new KubeApi(client, REVIEW_TIMEOUT), System::nanoTime).protect(endpoints);
            }
            SSLContext context = tls;
            EndpointServer.Handler handler = endpoints;
            metricsServer = listening("--metrics-bind-address", settings.metricsAddress(),
                    a -> EndpointServer.start("metrics", a, context, handler, EndpointServer.Limits.DEFAULT));
            LOG.info("serving /metrics and /decisions on port {} {}", metricsServer.port(), serving.secure()
                    ? "over HTTPS to the users the API server allows (TokenReview, SubjectAccessReview)"
                    : "over plain HTTP to anyone (--metrics-secure=false)");
        }
        if (settings.healthAddress() != null) {
            healthServer = listening("--health-probe-bind-address", settings.healthAddress(),
                    a -> new HealthServer(a, () -> !closing.get(), controller::isSynced));
        }
    }

    public void start() throws IOException {
        serve();
        controller.startInformers();
        if (sharding != null) {
            sharding.start();
        }
        if (election == null) {
            startWorkersWhenSynced();
        } else {
            election.start();
        }
    }

    private void startWorkersWhenSynced() {
        CompletableFuture<Boolean> started = new CompletableFuture<>();
        workerStart = started;
        Thread t = new Thread(() -> {
            try {
                if (!controller.awaitSynced(SYNC_TIMEOUT)) {
                    LOG.error("informers did not sync within {}", SYNC_TIMEOUT);
                    started.complete(false);
                    return;
                }
                awaitFreshLease();
                started.complete(startWorkersIfLeading());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                started.complete(false);
            }
        }, "start-workers");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Waits while this instance leads on a lease that is not fresh: won by an acquisition that outlasted the renew
     * deadline (a slow API server), it is fresh again at the next renewal, or lost at the renew deadline.
     */
    private void awaitFreshLease() throws InterruptedException {
        while (election != null && election.isLeading() && !election.holdsFreshLease()) {
            synchronized (workers) {
                if (closed || lost) {
                    return;
                }
            }
            Thread.sleep(settings.election().retryPeriod().toMillis());
        }
    }

    /** Starts the workers if this instance may reconcile now; the check and the start are one step. */
    boolean startWorkersIfLeading() {
        synchronized (workers) {
            if (closed || lost || (election != null && !election.holdsFreshLease())) {
                LOG.info("not starting the workers: {}", closed ? "shutting down" : "this instance does not hold the lease");
                return false;
            }
            LOG.info("informers synced: {} HPAs, {} pods; starting {} workers", controller.hpaCount(), controller.podCount(),
                    settings.options().workers());
            controller.startWorkers();
            return true;
        }
    }

    /** The lease is gone: no worker may start or keep running, and the controller ends (the pod restarts as a standby). */
    private void lostLease() {
        synchronized (workers) {
            lost = true;
        }
        controller.stopWorkers(settings.shutdownTimeout());
        LOG.error("exiting with status {}: the lease was lost", LOST_LEASE);
        exit.accept(LOST_LEASE);
    }

    /** The outcome of the latest attempt to start the workers (true when they started). */
    CompletableFuture<Boolean> workerStart() {
        return workerStart;
    }

    public boolean isLeader() {
        return election == null ? gate.isOpen() : election.isLeading();
    }

    public HorizontalController controller() {
        return controller;
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    public int healthPort() {
        return healthServer == null ? -1 : healthServer.port();
    }

    /** Whether the metrics and health ports (those configured) no longer listen. */
    boolean endpointsClosed() {
        return (metricsServer == null || metricsServer.isClosed()) && (healthServer == null || healthServer.isClosed());
    }

    /** Blocks until {@link #close} has finished. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        LOG.info("shutting down: finishing in-flight reconciles");
        synchronized (workers) {
            closed = true;
        }
        controller.stopWorkers(settings.shutdownTimeout());
        try {
            controller.flushEvents(Duration.ofSeconds(5)); // while this instance may still write
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        gate.close();
        if (election != null) {
            election.close();
        }
        if (sharding != null) {
            sharding.close(); // the workers stopped: nothing in flight; the others take this replica's HPAs at once
        }
        controller.stop(Duration.ofSeconds(2));
        if (metricsServer != null) {
            metricsServer.close();
        }
        if (healthServer != null) {
            healthServer.close();
        }
        LOG.info("stopped");
        stopped.countDown();
    }
}
