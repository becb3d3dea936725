package io.hpacontroller.testing.node;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that runs on the shared real node ({@link RealNodeExtension}): a parameter of type
 * {@link RealNode} gets it (started once per JVM, on first use, with the controller's image imported).
 * Classes run concurrently, each in namespaces of its own; a class that takes the node down for a while
 * (kubelet restarts, NotReady) holds {@link RealNodeExtension#NODE} READ_WRITE instead of this lock.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RealNodeExtension.class)
@ResourceLock(value = RealNodeExtension.NODE, mode = ResourceAccessMode.READ)
public @interface RealNodeTest {
}
