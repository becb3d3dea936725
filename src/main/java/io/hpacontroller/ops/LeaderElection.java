package io.hpacontroller.ops;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Leader election on a coordination.k8s.io Lease with fabric8's LeaderElector. Only the leader
 * reconciles. Losing the lease calls {@code onStopLeading} at once; the instance then stands for
 * election again as a standby. Closing releases the lease so a standby takes over without waiting for
 * it to expire.
 */
public final class LeaderElection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

    /**
     * Lease settings, with kube-controller-manager's defaults: 15 s lease, 10 s renew deadline, 2 s retry.
     */
    public record Settings(String namespace, String name, String identity, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
        public Settings {
            if (!(leaseDuration.compareTo(renewDeadline) > 0)) {
                throw new IllegalArgumentException("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
            }
            if (!(renewDeadline.compareTo(retryPeriod) > 0)) {
                throw new IllegalArgumentException("--leader-elect-renew-deadline must be greater than --leader-elect-retry-period");
            }
        }
    }

    private final KubernetesClient client;
    private final Settings settings;
    private final Runnable onStartLeading;
    private final Runnable onStopLeading;
    private final AtomicBoolean leading = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile CompletableFuture<?> current;
    private Thread loop;

    public LeaderElection(KubernetesClient client, Settings settings, Runnable onStartLeading, Runnable onStopLeading) {
        this.client = client;
        this.settings = settings;
        this.onStartLeading = onStartLeading;
        this.onStopLeading = onStopLeading;
    }

    public void start() {
        loop = new Thread(this::run, "leader-election");
        loop.setDaemon(true);
        loop.start();
    }

    private void run() {
        while (!closed.get()) {
            CompletableFuture<?> f = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                    .withName(settings.name())
                    .withLeaseDuration(settings.leaseDuration())
                    .withRenewDeadline(settings.renewDeadline())
                    .withRetryPeriod(settings.retryPeriod())
                    .withLock(new LeaseLock(settings.namespace(), settings.name(), settings.identity()))
                    .withLeaderCallbacks(new LeaderCallbacks(this::started, this::stopped, this::newLeader))
                    .withReleaseOnCancel(true)
                    .build()).build().start();
            current = f;
            try {
                f.join();
            } catch (RuntimeException e) {
                if (!closed.get()) {
                    LOG.warn("leader election ended: {}", e.getMessage());
                }
            }
            if (leading.get()) {
                stopped();
            }
            if (!closed.get()) {
                try {
                    Thread.sleep(settings.retryPeriod().toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void started() {
        if (leading.compareAndSet(false, true)) {
            LOG.info("{} became the leader (lease {}/{})", settings.identity(), settings.namespace(), settings.name());
            onStartLeading.run();
        }
    }

    private void stopped() {
        if (leading.compareAndSet(true, false)) {
            LOG.warn("{} lost the lease {}/{}: stopped writing", settings.identity(), settings.namespace(), settings.name());
            onStopLeading.run();
        }
    }

    private void newLeader(String identity) {
        LOG.info("the leader is now {}", identity);
    }

    public boolean isLeader() {
        return leading.get();
    }

    /** Stops campaigning and releases the lease if held. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<?> f = current;
        if (f != null) {
            f.cancel(true);
        }
        if (loop != null) {
            loop.interrupt();
            try {
                loop.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (leading.get()) {
            stopped();
        }
    }
}
