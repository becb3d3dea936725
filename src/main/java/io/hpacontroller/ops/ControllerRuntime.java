package io.hpacontroller.ops;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.live.ControllerOptions;
import io.hpacontroller.live.HorizontalController;
import io.hpacontroller.live.WriteGate;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The controller as it runs in a cluster: the live {@link HorizontalController}, its Prometheus
 * metrics, decisions ({@code /decisions/NAMESPACE/NAME}) and health endpoints, and (optionally) leader
 * election gating its workers and writes.
 *
 * <p>Shutdown (SIGTERM) stops taking work, lets in-flight reconciles finish, releases the lease so a
 * standby takes over at once, then stops the informers and the servers.
 */
public final class ControllerRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ControllerRuntime.class);
    static final Duration SYNC_TIMEOUT = Duration.ofMinutes(10);

    /**
     * @param options         the controller's options
     * @param election        leader election settings, null to run without it
     * @param metricsAddress  where /metrics is served, null for nowhere
     * @param healthAddress   where /healthz and /readyz are served, null for nowhere
     * @param shutdownTimeout how long in-flight reconciles may take to finish on shutdown
     */
    public record Settings(ControllerOptions options, LeaderElection.Settings election, InetSocketAddress metricsAddress,
                           InetSocketAddress healthAddress, Duration shutdownTimeout) {
    }

    private final KubernetesClient client;
    private final Settings settings;
    private final WriteGate gate;
    private final HorizontalController controller;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final RecentDecisions decisions = new RecentDecisions();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private LeaderElection election;
    private HTTPServer metricsServer;
    private HealthServer healthServer;

    public ControllerRuntime(KubernetesClient client, Settings settings) {
        this.client = client;
        this.settings = settings;
        this.gate = new WriteGate(settings.election() == null);
        this.controller = new HorizontalController(client, settings.options(), Clock.systemUTC(), gate);
        String leaseName = settings.election() == null ? "" : settings.election().name();
        controller.addListener(new ControllerMetrics(registry, controller, this::isLeader, leaseName));
        controller.addListener(new DecisionLog());
        controller.addListener(decisions);
    }

    public void start() throws IOException {
        JvmMetrics.builder().register(registry);
        if (settings.metricsAddress() != null) {
            metricsServer = HTTPServer.builder().inetAddress(settings.metricsAddress().getAddress())
                    .port(settings.metricsAddress().getPort()).registry(registry)
                    .defaultHandler(new DecisionsEndpoint(decisions, controller.histories(), settings.options(), this::isLeader))
                    .buildAndStart();
        }
        if (settings.healthAddress() != null) {
            healthServer = new HealthServer(settings.healthAddress(), () -> !closed.get(), controller::isSynced);
        }
        controller.startInformers();
        if (settings.election() == null) {
            startWorkersWhenSynced();
        } else {
            election = new LeaderElection(client, settings.election(), () -> {
                gate.open();
                startWorkersWhenSynced();
            }, () -> {
                gate.close();
                controller.stopWorkers(settings.shutdownTimeout());
                controller.forgetHistories();
            });
            election.start();
        }
    }

    private void startWorkersWhenSynced() {
        Thread t = new Thread(() -> {
            try {
                if (!controller.awaitSynced(SYNC_TIMEOUT)) {
                    LOG.error("informers did not sync within {}", SYNC_TIMEOUT);
                    return;
                }
                if (gate.isOpen() && !closed.get()) {
                    LOG.info("informers synced: {} HPAs, {} pods; starting {} workers", controller.hpaCount(),
                            controller.podCount(), settings.options().workers());
                    controller.startWorkers();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "start-workers");
        t.setDaemon(true);
        t.start();
    }

    public boolean isLeader() {
        return election == null ? gate.isOpen() : election.isLeader();
    }

    public HorizontalController controller() {
        return controller;
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.getPort();
    }

    public int healthPort() {
        return healthServer == null ? -1 : healthServer.port();
    }

    /** Blocks until {@link #close} has finished. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LOG.info("shutting down: finishing in-flight reconciles");
        controller.stopWorkers(settings.shutdownTimeout());
        gate.close();
        if (election != null) {
            election.close();
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
