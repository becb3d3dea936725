package io.hpacontroller.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code bench --replicas N} prints of the replicas' steady window, and the comparison with one replica. */
class ReplicaFiguresTest {

    private static final List<ReplicaFigures.Replica> THREE = List.of(
            new ReplicaFigures.Replica(10_100, 20_200, 50.5),  // 2.50 ms per reconcile
            new ReplicaFigures.Replica(9_900, 19_800, 57.42),  // 2.90 ms
            new ReplicaFigures.Replica(10_000, 20_000, 40.0)); // 2.00 ms

    @Test
    void aShareIsPerReplicaAndTheTotalsAddTheReplicasUp() {
        assertThat(ReplicaFigures.share(THREE.get(1), 100)).containsExactly(
                Map.entry("owned_hpas", "9900"), Map.entry("steady_reconciles_per_second", "198.0"),
                Map.entry("steady_cpu_seconds", "57.42"), Map.entry("steady_cpu_ms_per_reconcile", "2.90"));
        // 60,000 reconciles in 100 s; 147.92 CPU-s over them: 2.47 ms each (not the mean of the three ratios, 2.47 by chance
        // here: the replicas' reconciles weigh in)
        assertThat(ReplicaFigures.totals(THREE, 100)).containsExactly(
                Map.entry("owned_hpas_total", "30000"), Map.entry("steady_seconds", "100.0"),
                Map.entry("steady_reconciles_per_second", "600.0"), Map.entry("steady_cpu_ms_per_reconcile", "2.47"));
        assertThat(ReplicaFigures.totals(List.of(new ReplicaFigures.Replica(5, 0, 1.0)), 10))
                .containsEntry("steady_reconciles_per_second", "0.0").containsEntry("steady_cpu_ms_per_reconcile", "n/a");
        assertThat(ReplicaFigures.prefix(0)).isEqualTo("replica_1.");
    }

    @Test
    void everyReplicaIsComparedWithOneAndTheVerdictIsTheWorstOne() {
        assertThat(ReplicaFigures.againstBaseline(THREE, 2.60))
                .isEqualTo("replica_1 -3.8 %, replica_2 +11.5 %, replica_3 -23.1 % (within 15 %: yes)");
        // the busiest replica 2.90 ms against 2.50: 16 % above, though the total (2.47) is below the baseline
        assertThat(ReplicaFigures.againstBaseline(THREE, 2.50))
                .isEqualTo("replica_1 +0.0 %, replica_2 +16.0 %, replica_3 -20.0 % (within 15 %: no)");
    }

    @Test
    void withoutFiguresThereIsNoVerdict() {
        assertThat(ReplicaFigures.againstBaseline(THREE, Double.NaN)).isEqualTo("n/a");
        assertThat(ReplicaFigures.againstBaseline(List.of(), 2.5)).isEqualTo("n/a");
        assertThat(ReplicaFigures.againstBaseline(List.of(THREE.get(0), new ReplicaFigures.Replica(0, 0, 0.3)), 2.5))
                .isEqualTo("n/a (replica_2 made no reconcile in the steady window)");
    }
}
