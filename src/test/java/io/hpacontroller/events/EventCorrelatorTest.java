package io.hpacontroller.events;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/** client-go's event correlation, with its numbers: aggregation, counting, the per-object spam filter. */
class EventCorrelatorTest {

    private final EventCorrelator correlator = new EventCorrelator();
    private Instant now = Instant.parse("2026-03-01T12:00:00Z");

    private static EventCorrelator.Occurrence warning(String hpa, String reason, String message) {
        return new EventCorrelator.Occurrence("demo", hpa, "uid-" + hpa, "Warning", reason, message);
    }

    /** What one sync of an HPA whose metrics API is down records. */
    private List<EventCorrelator.Write> failingSync(String hpa) {
        List<EventCorrelator.Write> writes = new ArrayList<>();
        writes.add(correlator.correlate(warning(hpa, "FailedGetResourceMetric",
                "failed to get cpu utilization: unable to get metrics for resource cpu: the server is currently unable to handle the request"), now));
        writes.add(correlator.correlate(warning(hpa, "FailedComputeMetricsReplicas",
                "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value"), now));
        return writes;
    }

    @Test
    void twentySyncsOfAFailingHpaWriteWhatUpstreamWrites() {
        List<EventCorrelator.Write> writes = new ArrayList<>();
        for (int sync = 0; sync < 20; sync++) {
            writes.addAll(failingSync("web"));
            now = now.plus(Duration.ofSeconds(15));
        }
        List<EventCorrelator.Write> written = writes.stream().filter(Objects::nonNull).toList();
        assertThat(written).as("a burst of 25 per object, then one per 5 minutes").hasSize(25);
        assertThat(written).filteredOn(EventCorrelator.Write::create).as("two events, their counts bumped").hasSize(2);
        assertThat(written.get(24).count()).isEqualTo(13);

        // the bucket refills at one token per 5 minutes (0.95 of one since the 25th write); the next write
        // carries every occurrence counted meanwhile
        now = now.plus(Duration.ofMinutes(1));
        List<EventCorrelator.Write> later = failingSync("web");
        assertThat(later.get(0)).isNotNull();
        assertThat(later.get(0).count()).as("20 syncs before, this one").isEqualTo(21);
        assertThat(later.get(1)).as("one token, one write").isNull();
    }

    @Test
    void eachHpaHasItsOwnBucket() {
        for (int i = 0; i < 13; i++) {
            failingSync("web");
        }
        assertThat(failingSync("web")).containsOnlyNulls();
        assertThat(failingSync("api")).doesNotContainNull();
    }

    @Test
    void anIdenticalEventBumpsTheCountOfTheOneWrittenHoweverLongAgo() {
        EventCorrelator.Write first = correlator.correlate(warning("web", "FailedGetScale", "deployments.apps \"web\" not found"), now);
        now = now.plus(Duration.ofHours(3));
        EventCorrelator.Write again = correlator.correlate(warning("web", "FailedGetScale", "deployments.apps \"web\" not found"), now);
        assertThat(first.create()).isTrue();
        assertThat(again.create()).isFalse();
        assertThat(again.name()).isEqualTo(first.name());
        assertThat(again.count()).isEqualTo(2);
        assertThat(again.firstSeen()).isEqualTo(first.firstSeen());
    }

    @Test
    void tenDistinctMessagesForOneReasonWithinTenMinutesAreCombined() {
        List<EventCorrelator.Write> writes = new ArrayList<>();
        for (int i = 1; i <= 11; i++) {
            writes.add(correlator.correlate(warning("web", "SuccessfulRescale", "New size: " + i + "; reason: cpu above target"), now));
            now = now.plus(Duration.ofMinutes(1));
        }
        assertThat(writes.subList(0, 9)).allMatch(EventCorrelator.Write::create).extracting(EventCorrelator.Write::message)
                .allMatch(m -> m.startsWith("New size: "));
        assertThat(writes.get(9).message()).isEqualTo("(combined from similar events): New size: 10; reason: cpu above target");
        assertThat(writes.get(9).create()).isTrue();
        assertThat(writes.get(10).create()).as("the combined event is counted").isFalse();
        assertThat(writes.get(10).name()).isEqualTo(writes.get(9).name());
        assertThat(writes.get(10).message()).isEqualTo("(combined from similar events): New size: 11; reason: cpu above target");

        // more than ten minutes after the last similar event, messages are new again
        now = now.plus(Duration.ofMinutes(11));
        EventCorrelator.Write fresh = correlator.correlate(warning("web", "SuccessfulRescale", "New size: 12; reason: cpu above target"), now);
        assertThat(fresh.message()).isEqualTo("New size: 12; reason: cpu above target");
        assertThat(fresh.create()).isTrue();
    }
}
