package io.hpacontroller.deploy;

import io.hpacontroller.ops.LogSetup;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runnable jar the image ships (built in the package phase, before this test): fabric8's list of every
 * model class is left out, so no deserializer that searches the class path (fabric8's own, reading a
 * kubeconfig) loads and instantiates some 600 model classes; the other service lists are merged as before.
 * The bench and its API stub (Vert.x, Netty, HdrHistogram) are in a jar of their own beside it.
 */
class ShadedJarIT {

    private static final Path JAR = Path.of("target", "hpa-controller.jar");
    private static final Path BENCH_JAR = Path.of("target", "hpa-controller-bench.jar");

    /** {@code -V} prints the jar's Implementation-Version: pom.xml's version, the chart's (OneVersionTest). */
    @Test
    void printsTheVersionOfThePomAndTheChart() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(), "-V")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out.lines().filter(l -> !l.startsWith("NOTE: Picked up"))).containsExactly("hpa-controller " + OneVersionTest.pomVersion());
    }

    /**
     * The jar without the model modules it never reads: {@code run} from it syncs every HPA of the bench's stub (the
     * bench's jar runs the controller from this jar alone). The bench runs it for a fixed time: 120 s, as at a load of
     * 30 on 2 cores it was not even ready after 30 s.
     */
    @Test
    void runsTheControllerWithTheModelModulesItKeeps() throws Exception {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            for (String kept : List.of("autoscaling/v2/HorizontalPodAutoscaler", "autoscaling/v1/Scale", "coordination/v1/Lease",
                    "authorization/v1/SubjectAccessReview", "authentication/TokenReview", "Pod")) {
                assertThat(jar.getEntry("io/fabric8/kubernetes/api/model/" + kept + ".class")).as(kept).isNotNull();
            }
            for (String left : List.of("networking/v1/Ingress", "gatewayapi/v1/Gateway", "resource/v1/ResourceClaim",
                    "apiextensions/v1/CustomResourceDefinition", "metrics/v1beta1/PodMetrics", "rbac/Role", "flowcontrol/v1/FlowSchema")) {
                assertThat(jar.getEntry("io/fabric8/kubernetes/api/model/" + left + ".class")).as(left).isNull();
            }
        }
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", BENCH_JAR.toString(),
                "bench", "--hpas", "20", "--pods-per-hpa", "2", "--duration", "0s", "--run-for", "120s", "--sync-period", "5s")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        String allSynced = out.lines().filter(l -> l.startsWith("seconds_to_first_reconcile_all: ")).findFirst().orElseThrow();
        assertThat(allSynced).as(out).doesNotEndWith("n/a");
    }

    /** The controller's jar holds neither the bench nor the stub's libraries; the bench's jar holds only those. */
    @Test
    void leavesTheBenchAndItsStubToTheBenchsJar() throws IOException {
        List<String> benchOnly = List.of("io/hpacontroller/bench/", "io/vertx/", "io/netty/", "org/HdrHistogram/");
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertThat(jar.stream().map(e -> e.getName()).filter(n -> benchOnly.stream().anyMatch(n::startsWith))).isEmpty();
            assertThat(jar.getEntry("io/hpacontroller/cli/Main.class")).isNotNull();
        }
        try (JarFile bench = new JarFile(BENCH_JAR.toFile())) {
            for (String kept : benchOnly) {
                assertThat(bench.stream().anyMatch(e -> e.getName().startsWith(kept))).as(kept).isTrue();
            }
            assertThat(bench.getEntry("io/hpacontroller/cli/Main.class")).as("the controller: in the jar beside it").isNull();
            assertThat(bench.getManifest().getMainAttributes().getValue("Class-Path")).isEqualTo(JAR.getFileName().toString());
        }
    }

    @Test
    void leavesOutFabric8sListOfEveryModelClassAndKeepsTheOtherServiceLists() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertThat(jar.getEntry("META-INF/services/io.fabric8.kubernetes.api.model.KubernetesResource")).isNull();
            assertThat(jar.getEntry("io/fabric8/kubernetes/api/model/Pod.class")).as("the model classes themselves").isNotNull();

            var logback = jar.getEntry("META-INF/services/ch.qos.logback.classic.spi.Configurator");
            assertThat(logback).isNotNull();
            assertThat(new String(jar.getInputStream(logback).readAllBytes(), StandardCharsets.UTF_8)).contains(LogSetup.class.getName());
            var httpClients = jar.getEntry("META-INF/services/io.fabric8.kubernetes.client.http.HttpClient$Factory");
            assertThat(httpClients).as("fabric8 finds its HTTP client through a service list").isNotNull();
        }
    }
}
