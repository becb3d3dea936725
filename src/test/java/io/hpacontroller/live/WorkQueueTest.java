package io.hpacontroller.live;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class WorkQueueTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final WorkQueue queue = new WorkQueue(now::get, Duration.ofSeconds(1), Duration.ofSeconds(15));

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
        queue.wakeUp();
    }

    private Optional<String> next() throws InterruptedException {
        return queue.poll().map(WorkQueue.Item::key);
    }

    @Test
    void aKeyIsQueuedOnceHoweverOftenItIsAdded() throws Exception {
        queue.add("ns/a");
        queue.add("ns/a");
        queue.add("ns/b");
        assertThat(queue.depth()).isEqualTo(2);
        assertThat(next()).contains("ns/a");
        assertThat(next()).contains("ns/b");
        assertThat(next()).isEmpty();
        assertThat(queue.totalAdds()).isEqualTo(2);
    }

    @Test
    void aKeyBeingProcessedIsNotHandedOutAgainUntilDone() throws Exception {
        queue.add("ns/a");
        assertThat(next()).contains("ns/a");
        queue.add("ns/a"); // changed while a worker has it
        assertThat(next()).as("a second worker must not get it").isEmpty();
        queue.done("ns/a");
        assertThat(next()).as("queued again once the first worker is done").contains("ns/a");
    }

    @Test
    void scheduledKeysComeDueWithTheTicker() throws Exception {
        queue.addAfter("ns/a", Duration.ofSeconds(15));
        assertThat(next()).isEmpty();
        advance(Duration.ofSeconds(14));
        assertThat(next()).isEmpty();
        advance(Duration.ofSeconds(1));
        assertThat(next()).contains("ns/a");
    }

    @Test
    void anImmediateAddWinsOverASchedule() throws Exception {
        queue.addAfter("ns/a", Duration.ofSeconds(15));
        queue.add("ns/a");
        assertThat(next()).contains("ns/a");
        queue.done("ns/a");
        advance(Duration.ofSeconds(20));
        assertThat(next()).as("the old schedule is gone").isEmpty();
    }

    @Test
    void retriesBackOffExponentiallyUpToTheCapAndForgetResets() {
        assertThat(queue.retry("ns/a")).isEqualTo(Duration.ofSeconds(1));
        assertThat(queue.retry("ns/a")).isEqualTo(Duration.ofSeconds(2));
        assertThat(queue.retry("ns/a")).isEqualTo(Duration.ofSeconds(4));
        assertThat(queue.retry("ns/a")).isEqualTo(Duration.ofSeconds(8));
        assertThat(queue.retry("ns/a")).isEqualTo(Duration.ofSeconds(15));
        assertThat(queue.retry("ns/a")).isEqualTo(Duration.ofSeconds(15));
        assertThat(queue.totalRetries()).isEqualTo(6);
        queue.forget("ns/a");
        assertThat(queue.retry("ns/a")).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void removeForgetsEverythingAboutAKey() throws Exception {
        queue.addAfter("ns/a", Duration.ofSeconds(1));
        queue.add("ns/b");
        queue.remove("ns/a");
        queue.remove("ns/b");
        assertThat(queue.isTracked("ns/a")).isFalse();
        assertThat(queue.isTracked("ns/b")).isFalse();
        advance(Duration.ofSeconds(2));
        assertThat(next()).isEmpty();
    }

    @Test
    void shutDownReleasesWaitingWorkers() throws Exception {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException ignored) {
            }
            queue.shutDown();
        });
        t.start();
        assertThat(queue.take(Duration.ofSeconds(10))).isEmpty();
        t.join();
        queue.add("ns/a");
        assertThat(queue.depth()).isZero();
    }

    @Test
    void reportsHowLongAKeyWaitedAfterItWasDue() throws Exception {
        queue.add("ns/a");
        advance(Duration.ofMillis(300));
        assertThat(queue.poll()).get().extracting(WorkQueue.Item::waitedNanos).isEqualTo(Duration.ofMillis(300).toNanos());
    }
}
