package io.hpacontroller.testing.kube;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts the shared control plane ({@link KubeControlPlane.Options#workloads}) the first time a test
 * asks for it, keeps it in the root store for every later test class of the JVM, and closes it when the
 * JUnit run ends (or a shutdown hook does, or the watchdog if the JVM is killed). Resolves
 * {@link KubeControlPlane} and {@link TestNamespace} parameters. A start-up failure (etcd or the
 * binaries missing) fails every test that needs the control plane, with what to install.
 */
public final class RealKubeExtension implements ParameterResolver {

    /** The resource lock of the shared control plane (READ: uses it; READ_WRITE: restarts parts of it). */
    public static final String SHARED_PLANE = "io.hpacontroller.testing.kube.shared-control-plane";
    /**
     * Held (read-write) by the classes that load the machine for minutes ({@code HeapPerHpaIT}: two controllers and
     * 2,000 HPAs) and by those that measure sync intervals against a bound ({@code SlowMetricsSourceIT}), so that the
     * one is not measured while the other saturates 2 cores. A read-write lock on a class runs its tests one after the
     * other: {@code HeapPerHpaIT}'s two side by side, at a load of 30, had the fresh start's first list of 500 HPAs of
     * 250 KB time out beside the 2,000 HPAs, and {@code run} exit.
     */
    public static final String MACHINE = "io.hpacontroller.testing.kube.machine";
    /**
     * The order the classes start in ({@code @Order}; the failsafe configuration orders by it, the classes without one
     * last). A class that has the shared plane to itself waits for every running class to end, and no class starts while
     * it waits: those start first, alone. Then {@code HeapPerHpaIT}, the longest, which so takes the machine's lock before
     * {@code SlowMetricsSourceIT}; then the classes of several minutes, so that none of them starts last.
     */
    public static final int ORDER_PLANE_TO_ITSELF = 1;
    /** See {@link #ORDER_PLANE_TO_ITSELF}: {@code HeapPerHpaIT}. */
    public static final int ORDER_MACHINE_LONG = 2;
    /** See {@link #ORDER_PLANE_TO_ITSELF}: the classes of several minutes. */
    public static final int ORDER_LONG = 3;
    /**
     * {@code SlowMetricsSourceIT}, which measures sync intervals: after the others of several minutes, so that it takes
     * the machine's lock after {@code HeapPerHpaIT} and runs late, beside fewer classes (beside them, at a load of 30,
     * its healthy HPAs synced at a p50 of 29 s against a 10 s period).
     */
    public static final int ORDER_MACHINE_SHORT = 4;

    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(RealKubeExtension.class);

    /** Closes the control plane when the root store is closed (the end of the run). */
    private record Holder(KubeControlPlane plane) implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        @Override
        public void close() {
            plane.close();
        }
    }

    /** The shared control plane, started on first use. */
    public static KubeControlPlane shared(ExtensionContext context) {
        return context.getRoot().getStore(STORE)
                .getOrComputeIfAbsent("shared", k -> new Holder(KubeControlPlane.start(KubeControlPlane.Options.workloads("shared"))), Holder.class)
                .plane();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == KubeControlPlane.class || type == TestNamespace.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        KubeControlPlane plane = shared(context);
        if (parameter.getParameter().getType() == KubeControlPlane.class) {
            return plane;
        }
        String test = context.getTestMethod().map(m -> m.getName()).orElse(context.getRequiredTestClass().getSimpleName());
        try {
            return plane.newNamespace(test);
        } catch (RuntimeException e) {
            throw new ParameterResolutionException("cannot create a namespace for " + test, e);
        }
    }
}
