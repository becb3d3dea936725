package io.hpacontroller.testing.kube;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.ResourceAccessMode;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that uses the shared real control plane: parameters of type {@link KubeControlPlane}
 * get it (started once per JVM, on first use), parameters of type {@link TestNamespace} get a fresh
 * namespace on it. Classes and methods may run concurrently: each test works in its own namespace.
 * A class that must have the control plane to itself (it restarts the API server) takes the lock
 * {@link RealKubeExtension#SHARED_PLANE} in READ_WRITE mode instead of using this annotation, and
 * {@code @Order(RealKubeExtension.ORDER_PLANE_TO_ITSELF)}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RealKubeExtension.class)
@ResourceLock(value = RealKubeExtension.SHARED_PLANE, mode = ResourceAccessMode.READ)
public @interface RealKube {
}
