package io.hpacontroller.testing;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

/** The test cluster itself: every live test's teardown depends on it closing cleanly. */
class MockClusterTest {

    /**
     * A watch closed by its client while the server is streaming events to it. The mock's watch listener
     * waits for its sender on close; on the event loop that stalled the server (and its shutdown) until a
     * write timed out (about 30 s). Now every close must leave the server answering and closable.
     */
    @Test
    void watchesClosedDuringAFloodOfEventsNeitherStallTheServerNorItsShutdown() throws Exception {
        MockCluster cluster = MockCluster.start();
        KubernetesClient client = cluster.client();
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger seq = new AtomicInteger();
        Thread writer = new Thread(() -> {
            while (writing.get()) {
                try {
                    int n = seq.incrementAndGet();
                    ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("cm-" + (n % 20))
                            .withNamespace("demo").endMetadata().addToData("v", Integer.toString(n)).build();
                    client.configMaps().inNamespace("demo").resource(cm).createOr(c -> c.update());
                } catch (RuntimeException e) {
                    // keep flooding
                }
            }
        }, "event-flood");
        writer.setDaemon(true);
        writer.start();
        try (KubernetesClient watcher = cluster.newClient()) {
            for (int i = 0; i < 20; i++) {
                AtomicInteger events = new AtomicInteger();
                Watch watch = watcher.configMaps().inNamespace("demo").watch(new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, ConfigMap resource) {
                        events.incrementAndGet();
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                    }
                });
                await().atMost(Waits.STATE).pollInterval(Duration.ofMillis(1)).until(() -> events.get() >= 3);
                watch.close();
                long start = System.nanoTime();
                client.configMaps().inNamespace("demo").withName("cm-1").get();
                // a stall lasts until the write times out, 30 s; a loaded machine answers in well under 20
                assertThat((System.nanoTime() - start) / 1_000_000).as("a GET right after watch %d closed, ms", i).isLessThan(20_000);
            }
        } finally {
            writing.set(false);
            writer.join(5_000);
        }
        assertThatCode(cluster::close).doesNotThrowAnyException();
    }
}
