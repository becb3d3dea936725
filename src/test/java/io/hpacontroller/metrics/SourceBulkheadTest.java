package io.hpacontroller.metrics;

import io.hpacontroller.core.port.ApiException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bound on the requests in flight to one metrics API, on a hand-moved clock. */
class SourceBulkheadTest {

    private static final String CUSTOM = "custom metrics API";
    private static final String EXTERNAL = "external metrics API";

    private final AtomicLong nanos = new AtomicLong();
    private final SourceBulkhead bulkhead = new SourceBulkhead(2, Duration.ofSeconds(2), nanos::get);

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    private List<SourceBulkhead.Permit> enter(String source, int n) throws ApiException {
        List<SourceBulkhead.Permit> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(bulkhead.enter(source));
        }
        return out;
    }

    @Test
    void aHealthyApiServesEveryWorkerAtOnce() throws ApiException {
        List<SourceBulkhead.Permit> five = enter(CUSTOM, 5);
        assertThat(bulkhead.inFlight(CUSTOM)).as("five workers at once on an API whose requests end in time").isEqualTo(5);
        advance(Duration.ofMillis(1999));
        five.forEach(SourceBulkhead.Permit::close);
        assertThat(enter(CUSTOM, 5)).hasSize(5);
    }

    @Test
    void onceARequestHangsTheApiHoldsAtMostTheBoundAndAFetchBeyondFailsAtOnce() throws ApiException {
        enter(CUSTOM, 2);
        advance(Duration.ofMillis(2001));
        assertThatThrownBy(() -> bulkhead.enter(CUSTOM)).isInstanceOf(ApiException.class)
                .hasMessage("not asked: 2 requests to it already in flight and it is slow (a request took longer than 2s;"
                        + " --metrics-max-inflight-per-source=2)");
        assertThat(bulkhead.inFlight(CUSTOM)).isEqualTo(2);
        assertThat(enter(EXTERNAL, 4)).as("the other APIs are not bounded by it").hasSize(4);
    }

    @Test
    void theRequestsLetThroughBeforeOneWasSeenSlowStayInFlightButNoMoreGo() throws ApiException {
        enter(CUSTOM, 4);
        advance(Duration.ofSeconds(3));
        assertThatThrownBy(() -> bulkhead.enter(CUSTOM)).isInstanceOf(ApiException.class);
        assertThat(bulkhead.inFlight(CUSTOM)).isEqualTo(4);
    }

    @Test
    void belowTheBoundASlowApiIsStillAskedAndARequestThatEndsInTimeLiftsTheBound() throws ApiException {
        List<SourceBulkhead.Permit> hanging = enter(CUSTOM, 2);
        advance(Duration.ofSeconds(11));
        hanging.get(0).close(); // timed out: the API stays slow
        SourceBulkhead.Permit probe = bulkhead.enter(CUSTOM);
        assertThatThrownBy(() -> bulkhead.enter(CUSTOM)).as("slow, and 2 in flight").isInstanceOf(ApiException.class);
        hanging.get(1).close();
        advance(Duration.ofMillis(50));
        probe.close(); // answered in 50 ms
        assertThat(enter(CUSTOM, 5)).as("no request in flight too long, and the last ended in time").hasSize(5);
    }

    @Test
    void aSlowAnswerKeepsTheBoundAfterItEnded() throws ApiException {
        SourceBulkhead.Permit slow = bulkhead.enter(CUSTOM);
        advance(Duration.ofSeconds(3));
        slow.close();
        enter(CUSTOM, 2);
        assertThatThrownBy(() -> bulkhead.enter(CUSTOM)).isInstanceOf(ApiException.class);
    }

    @Test
    void aPermitEndsOnceHoweverOftenItIsClosed() throws ApiException {
        SourceBulkhead.Permit p = bulkhead.enter(CUSTOM);
        bulkhead.enter(CUSTOM);
        p.close();
        p.close();
        assertThat(bulkhead.inFlight(CUSTOM)).isEqualTo(1);
    }

    @Test
    void theBoundIsAtLeastOne() {
        assertThatThrownBy(() -> new SourceBulkhead(0, Duration.ofSeconds(2)))
                .hasMessage("--metrics-max-inflight-per-source must be at least 1, got 0");
    }
}
