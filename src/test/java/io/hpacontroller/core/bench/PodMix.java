package io.hpacontroller.core.bench;

import io.hpacontroller.core.model.ContainerInfo;
import io.hpacontroller.core.model.ContainerUsage;
import io.hpacontroller.core.model.PodInfo;
import io.hpacontroller.core.model.PodPhase;
import io.hpacontroller.core.model.PodUsage;
import io.hpacontroller.core.model.ReadyStatus;
import io.hpacontroller.core.model.ResourceAmounts;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A realistic mix of a Deployment's pods and their metrics.k8s.io samples: most pods running, ready and
 * measured, an app container plus (on a third of them) a sidecar, usage spread around 55 % of request;
 * a few pending, being deleted, still initializing (inside the CPU initialization period), or without a
 * sample yet.
 */
final class PodMix {

    static final long NOW = 1_800_000_000_000L;

    final List<PodInfo> pods = new ArrayList<>();
    final List<PodUsage> usage = new ArrayList<>();

    PodMix(int count, long seed) {
        Random r = new Random(seed);
        ResourceAmounts app = ResourceAmounts.of(Map.of("cpu", 500L, "memory", 512L * 1024 * 1024 * 1000));
        ResourceAmounts sidecar = ResourceAmounts.of(Map.of("cpu", 100L, "memory", 64L * 1024 * 1024 * 1000));
        for (int i = 0; i < count; i++) {
            String name = "web-7d9f8c6b5-" + Integer.toString(100_000 + i, 36);
            double p = r.nextDouble();
            PodPhase phase = p < 0.03 ? PodPhase.PENDING : PodPhase.RUNNING;
            boolean deleting = p >= 0.03 && p < 0.05;
            boolean young = p >= 0.05 && p < 0.10;  // started two minutes ago
            long start = young ? NOW - 120_000 : NOW - 3_600_000 - r.nextInt(86_400_000);
            ReadyStatus ready = phase == PodPhase.PENDING ? ReadyStatus.FALSE : (young && r.nextBoolean() ? ReadyStatus.FALSE : ReadyStatus.TRUE);
            long transition = start + 5_000 + r.nextInt(20_000);
            boolean withSidecar = i % 3 == 0;
            ContainerInfo[] containers = withSidecar
                    ? new ContainerInfo[]{new ContainerInfo("app", app), new ContainerInfo("istio-proxy", sidecar)}
                    : new ContainerInfo[]{new ContainerInfo("app", app)};
            pods.add(new PodInfo(name, phase, ready, transition, start, deleting, containers, null));
            if (phase == PodPhase.PENDING || p > 0.98) {
                continue;  // no sample yet
            }
            List<ContainerUsage> cu = new ArrayList<>();
            cu.add(new ContainerUsage("app", ResourceAmounts.of(Map.of("cpu", 150L + r.nextInt(400), "memory", 300L * 1024 * 1024 * 1000))));
            if (withSidecar) {
                cu.add(new ContainerUsage("istio-proxy", ResourceAmounts.of(Map.of("cpu", 5L + r.nextInt(40), "memory", 40L * 1024 * 1024 * 1000))));
            }
            usage.add(new PodUsage(name, NOW - 10_000 - r.nextInt(20_000), 30_000, cu));
        }
    }
}
