package io.hpacontroller.cli;

import io.hpacontroller.history.StoredHistory;
import io.hpacontroller.testing.kube.ChildProcess;
import io.hpacontroller.testing.kube.ControllerProcess;
import io.hpacontroller.testing.kube.Crds;
import io.hpacontroller.testing.kube.KubeControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * README "Run from a workstation" on a cluster without our CRDs (a control plane of its own: the shared one has them,
 * and CRDs are cluster-wide): {@code run} with its defaults (the mirror API, kept histories) exits 2 with one line that
 * names both CRDs it needs and the one command that installs them; that command, run as printed, is all it takes for
 * the next {@code run} to start (issue 27, item 8: it used to name one CRD, then the other at the next start).
 */
class WorkstationRunIT {

    private static final Pattern COMMAND = Pattern.compile("install the CRDs, all at once: (kubectl [^(]+?) \\(");
    private static KubeControlPlane kube;

    @BeforeAll
    static void startControlPlane() {
        kube = KubeControlPlane.start(KubeControlPlane.Options.workloads("workstation"));
    }

    @AfterAll
    static void stopControlPlane() {
        if (kube != null) {
            kube.close();
        }
    }

    @Test
    void runNamesEveryCrdItNeedsAndTheOneCommandThatInstallsThemAndThenStarts() throws Exception {
        Path log = kube.directory().resolve("workstation-run.log");
        ChildProcess first = ControllerProcess.start("workstation", kube.adminKubeconfig(), log, "--leader-elect=false");
        assertThat(first.awaitExit(Duration.ofMinutes(2))).as(first.tail(20)).isEqualTo(2);
        List<String> errors = Files.readAllLines(log).stream().filter(l -> l.startsWith("error: ")).toList();
        assertThat(errors).singleElement().satisfies(e -> assertThat(e)
                .contains("horizontalpodautoscalers.autoscaling.hpa-controller.io (--hpa-apis includes autoscaling.hpa-controller.io/v1)")
                .contains(StoredHistory.PLURAL + "." + StoredHistory.GROUP + " (--persist-history is on)")
                .contains("or leave autoscaling.hpa-controller.io/v1 out of --hpa-apis and set --persist-history=false"));
        assertThat(Files.readString(log)).doesNotContain("Exception");

        Matcher command = COMMAND.matcher(errors.get(0));
        assertThat(command.find()).as(errors.get(0)).isTrue();
        List<String> args = Arrays.asList(command.group(1).split(" "));
        kube.kubectl(args.subList(1, args.size()).toArray(String[]::new)); // from the repository's root, as the message says
        Crds.awaitEstablished(kube.adminClient(), "horizontalpodautoscalers.autoscaling.hpa-controller.io");
        Crds.awaitEstablished(kube.adminClient(), StoredHistory.PLURAL + "." + StoredHistory.GROUP);

        ChildProcess second = ControllerProcess.start("workstation", kube.adminKubeconfig(), log, "--leader-elect=false");
        try {
            await().atMost(Duration.ofMinutes(2)).until(() -> {
                second.checkAlive();
                return Files.readString(log).contains("informers synced: ");
            });
        } finally {
            second.stop(Duration.ofSeconds(20));
        }
    }
}
