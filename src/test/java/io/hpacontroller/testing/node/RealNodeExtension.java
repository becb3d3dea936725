package io.hpacontroller.testing.node;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts the shared real node the first time a test asks for it (a {@link RealNode} parameter), and the
 * chart's default install on it the first time a test asks for a {@link ControllerRelease}; imports the controller's image
 * ({@code target/image/hpa-controller.tar}, which {@code mvn verify} builds before the integration tests),
 * keeps it for every later class of the JVM and closes it when the JUnit run ends (or a shutdown hook does,
 * or the test processes' watchdog if the JVM is killed). A start-up failure fails every test that needs the
 * node, with what is missing: the fixture itself never skips.
 */
public final class RealNodeExtension implements ParameterResolver {

    /** The shared node (READ: runs pods on it; READ_WRITE: stops its kubelet for a while). */
    public static final String NODE = "io.hpacontroller.testing.node.shared-node";
    /** The default release's leader (READ: measures its timing; READ_WRITE: kills it). */
    public static final String DEFAULT_RELEASE_LEADER = "io.hpacontroller.testing.node.default-release-leader";
    /** Upstream's HPA controller (READ: needs it on; READ_WRITE: turns it off and on). */
    public static final String UPSTREAM_HPA_CONTROLLER = "io.hpacontroller.testing.node.upstream-hpa-controller";
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(RealNodeExtension.class);

    private record Holder(RealNode node) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            node.close();
        }
    }

    static RealNode shared(ExtensionContext context) {
        return context.getRoot().getStore(STORE).getOrComputeIfAbsent("node", k -> {
            // the node-lifecycle controller marks the node NotReady 20 s after its kubelet stops reporting (default 40 s)
            RealNode node = RealNode.start("node-tier", List.of("--node-monitor-grace-period=20s"));
            try {
                node.importImage(controllerImage());
            } catch (RuntimeException e) {
                node.close();
                throw e;
            }
            return new Holder(node);
        }, Holder.class).node();
    }

    /** The image {@code mvn verify} built for these tests (pom.xml, Jib's buildTar in pre-integration-test). */
    static Path controllerImage() {
        Path tar = Path.of(System.getProperty("image.tar", "target/image/hpa-controller.tar"));
        if (!Files.isRegularFile(tar)) {
            throw new IllegalStateException(tar + " is missing: `mvn verify` builds it before the integration tests (Jib, pom.xml)");
        }
        return tar;
    }

    /**
     * The chart's default install ({@code helm install hpa-controller charts/hpa-controller -n hpa-controller
     * --create-namespace}: two replicas, the mirror API only), installed once, the first time a test asks.
     */
    static ControllerRelease defaultRelease(ExtensionContext context) {
        RealNode node = shared(context);
        return context.getRoot().getStore(STORE).getOrComputeIfAbsent("default-release",
                k -> ControllerRelease.install(node, "hpa-controller", "hpa-controller", java.util.Map.of()), ControllerRelease.class);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == RealNode.class || type == ControllerRelease.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == RealNode.class ? shared(context) : defaultRelease(context);
    }
}
