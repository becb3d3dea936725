package io.hpacontroller.deploy;

import io.hpacontroller.ops.LogSetup;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runnable jar the image ships (built in the package phase, before this test): fabric8's list of every
 * model class is left out, so no deserializer that searches the class path (fabric8's own, reading a
 * kubeconfig) loads and instantiates some 600 model classes; the other service lists are merged as before.
 */
class ShadedJarIT {

    private static final Path JAR = Path.of("target", "hpa-controller.jar");

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
