package io.hpacontroller.ops;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.core.trace.DecisionTrace;
import io.hpacontroller.core.trace.ReconcileOutcome.Action;
import io.hpacontroller.core.trace.ReconcileOutcome.ErrorKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The decisions endpoint's memory is bounded per HPA and in total, and keeps the most recent traces. */
class RecentDecisionsTest {

    private static DecisionTrace trace(String hpa, long time) {
        return new DecisionTrace(HpaKey.parse(hpa), time, 3, 1, 10, List.of(), -1, null, -1, null, null, List.of(), null, 3, Action.NONE, false, "",
                ErrorKind.NONE, null, null);
    }

    private static List<Long> times(List<DecisionTrace> traces) {
        return traces.stream().map(DecisionTrace::time).toList();
    }

    @Test
    void eachHpaKeepsItsLastTwenty() {
        RecentDecisions recent = new RecentDecisions();
        for (long t = 1; t <= 25; t++) {
            recent.add(trace("demo/web", t));
        }
        recent.add(trace("demo/api", 100));
        assertThat(times(recent.of(HpaKey.parse("demo/web")))).hasSize(RecentDecisions.PER_HPA).startsWith(6L).endsWith(25L).isSorted();
        assertThat(times(recent.of(HpaKey.parse("demo/api")))).containsExactly(100L);
        assertThat(recent.size()).isEqualTo(21);
    }

    @Test
    void theTotalIsBoundedAndTheOldestGoFirstWhicheverHpaTheyBelongTo() {
        RecentDecisions recent = new RecentDecisions(4, 10);
        // 5 HPAs synced in turn, 6 rounds: 30 traces, at most 10 kept, the last 2 rounds
        for (long round = 1; round <= 6; round++) {
            for (int h = 0; h < 5; h++) {
                recent.add(trace("demo/hpa-" + h, round * 10 + h));
                assertThat(recent.size()).isLessThanOrEqualTo(10);
            }
        }
        assertThat(recent.size()).isEqualTo(10);
        for (int h = 0; h < 5; h++) {
            assertThat(times(recent.of(HpaKey.parse("demo/hpa-" + h)))).containsExactly(50L + h, 60L + h);
        }
    }

    @Test
    void aDeletedHpaTakesItsTracesAlongAndTheIndexStaysBounded() {
        RecentDecisions recent = new RecentDecisions(3, 12);
        for (long t = 0; t < 10_000; t++) {
            recent.add(trace("demo/hpa-" + (t % 2), t));
            assertThat(recent.orderLength()).isLessThanOrEqualTo(2 * 12);
        }
        assertThat(recent.size()).isEqualTo(6);
        recent.forget(HpaKey.parse("demo/hpa-0"));
        assertThat(recent.of(HpaKey.parse("demo/hpa-0"))).isEmpty();
        assertThat(recent.size()).isEqualTo(3);
        for (long t = 0; t < 100; t++) {
            recent.add(trace("demo/hpa-new-" + t, t));
        }
        assertThat(recent.size()).isEqualTo(12);
        assertThat(recent.orderLength()).isLessThanOrEqualTo(24);
    }
}
