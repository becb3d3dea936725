package io.hpacontroller.testing.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.controller.ControllerOptions;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.lease.LeaseSettings;
import io.hpacontroller.ops.ControllerRuntime;
import io.hpacontroller.ops.MetricsServing;
import io.hpacontroller.testing.RecordedExit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Our controller in this JVM, as {@code run} assembles it ({@link ControllerRuntime}: informers, workers,
 * optional leader election; the metrics port on request, no health port), with the given client (e.g. a {@link ChartRelease}'s
 * ServiceAccount). Records every sync, so a test that asserts that nothing happened can also show that
 * the controller was running. Closing stops the controller and closes the client, and fails the test if the
 * controller lost its lease (which never ends the test JVM: see {@link RecordedExit}).
 */
public final class InProcessController implements AutoCloseable {

    private final KubernetesClient client;
    private final ControllerRuntime runtime;
    private final RecordedExit exit;
    private final List<SyncReport> syncs = new CopyOnWriteArrayList<>();

    private InProcessController(KubernetesClient client, ControllerRuntime runtime, RecordedExit exit) {
        this.client = client;
        this.runtime = runtime;
        this.exit = exit;
    }

    /** Starts the controller; {@code election} null runs it without leader election. */
    public static InProcessController start(KubernetesClient client, ControllerOptions options, LeaseSettings election) {
        return start(client, options, election, null);
    }

    /** The same, serving /metrics and /decisions on a free loopback port ({@code runtime().metricsPort()}) as {@code serving} says; null: not. */
    public static InProcessController start(KubernetesClient client, ControllerOptions options, LeaseSettings election, MetricsServing serving) {
        RecordedExit exit = new RecordedExit();
        ControllerRuntime runtime = new ControllerRuntime(client, new ControllerRuntime.Settings(options, election,
                serving == null ? null : new java.net.InetSocketAddress("127.0.0.1", 0), serving == null ? MetricsServing.PLAIN : serving, null,
                Duration.ofSeconds(5)), exit);
        InProcessController c = new InProcessController(client, runtime, exit);
        runtime.controller().addListener(c.syncs::add);
        try {
            runtime.start();
        } catch (IOException e) {
            c.close();
            throw new UncheckedIOException(e);
        }
        return c;
    }

    public ControllerRuntime runtime() {
        return runtime;
    }

    /** Reconciles of one HPA ("namespace/name") so far. */
    public long syncsOf(String key) {
        return syncs.stream().filter(r -> key.equals(r.key().toString()) && r.outcome() != null).count();
    }

    /** The reconciles of one HPA ("namespace/name") so far, in order. */
    public List<SyncReport> syncs(String key) {
        return syncs.stream().filter(r -> key.equals(r.key().toString()) && r.outcome() != null).toList();
    }

    /**
     * Stops the controller and closes the client. Fails when the controller reported another writer of an HPA's status
     * (ConflictingController): in the tests that run it only this controller writes, so each of them also shows that it
     * reports none falsely.
     */
    @Override
    public void close() {
        var conflicts = runtime.controller().conflictingWriters();
        runtime.close();
        client.close();
        if (!conflicts.isEmpty()) {
            throw new AssertionError("the controller reported another writer of the status of " + conflicts + " though it ran alone");
        }
        exit.assertNone("the in-process controller");
    }
}
