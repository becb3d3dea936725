package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.hpacontroller.bench.Bench;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The image's definition, read from pom.xml (Jib's configuration; the tests' image and the release's come from
 * it, only the base differs): the shaded jar on the jlinked runtime, as the pod's numeric non-root user, with
 * the JVM options bench measures in the environment (where the chart's jvmOptions replace them).
 */
class ImageTest {

    private static final Element JIB = jibConfiguration();

    @Test
    void runsTheShadedJarOnTheLinkedRuntime() {
        // the class path as the class-data archive was written with: the jar by its relative name, in /app
        assertThat(texts(child(child(JIB, "container"), "entrypoint"), "arg")).containsExactly("/opt/java/bin/java",
                "-XX:SharedArchiveFile=/app/hpa-controller.jsa", "-Xshare:auto", "-jar", "hpa-controller.jar");
        assertThat(text(child(child(JIB, "container"), "workingDirectory"))).isEqualTo("/app");
        assertThat(texts(child(child(JIB, "container"), "args"), "arg")).containsExactly("run");
        List<String> froms = new ArrayList<>();
        List<String> intos = new ArrayList<>();
        NodeList paths = child(child(JIB, "extraDirectories"), "paths").getElementsByTagName("path");
        for (int i = 0; i < paths.getLength(); i++) {
            Element p = (Element) paths.item(i);
            froms.add(text(child(p, "from")));
            intos.add(text(child(p, "into")));
        }
        assertThat(froms).containsExactly("${project.build.directory}/image/runtime", "${project.build.directory}/image/app");
        assertThat(intos).containsExactly("/opt/java", "/app");
        String shadedJar = pom().getElementsByTagName("outputFile").item(0).getTextContent().strip();
        assertThat(shadedJar).isEqualTo("${project.build.directory}/hpa-controller.jar");
    }

    @Test
    void runsAsTheNumericNonRootUserOfThePod() {
        String user = text(child(child(JIB, "container"), "user"));
        assertThat(user).matches("\\d+:\\d+");
        long uid = Long.parseLong(user.split(":")[0]);
        assertThat(uid).isNotZero();
        Long podUser = Manifests.deployDir().single(Deployment.class).getSpec().getTemplate().getSpec().getSecurityContext().getRunAsUser();
        assertThat(podUser).as("deploy/ runAsUser").isEqualTo(uid);
    }

    @Test
    void carriesTheJvmOptionsBenchMeasuresInItsEnvironment() {
        assertThat(text(child(child(child(JIB, "container"), "environment"), "JDK_JAVA_OPTIONS"))).isEqualTo("${image.jvmOptions}");
        String options = text(child((Element) pom().getElementsByTagName("properties").item(0), "image.jvmOptions"));
        assertThat(options).isEqualTo(String.join(" ", Bench.IMAGE_JVM_OPTIONS));
    }

    @Test
    void theReleaseBaseIsPinnedAndNeverLatest() {
        String release = Manifests.read(Path.of(".github/workflows/release.yml"));
        assertThat(release).containsPattern("-Dimage\\.base=gcr\\.io/distroless/cc-debian12:nonroot").doesNotContain(":latest");
    }

    private static Document pom() {
        try {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        } catch (Exception e) {
            throw new IllegalStateException("pom.xml: " + e, e);
        }
    }

    private static Element jibConfiguration() {
        NodeList plugins = pom().getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element p = (Element) plugins.item(i);
            if ("jib-maven-plugin".equals(text(child(p, "artifactId"))) && has(p, "configuration")) { // not pluginManagement's version
                return child(p, "configuration");
            }
        }
        throw new AssertionError("no jib-maven-plugin in pom.xml");
    }

    private static Element child(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        throw new AssertionError("<" + name + "> not in <" + parent.getTagName() + ">");
    }

    private static boolean has(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static String text(Element e) {
        return e.getTextContent().strip();
    }

    private static List<String> texts(Element parent, String name) {
        List<String> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(text(e));
            }
        }
        return out;
    }
}
