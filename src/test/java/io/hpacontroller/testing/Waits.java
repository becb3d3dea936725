package io.hpacontroller.testing;


import io.hpacontroller.lease.LeaseSettings;
import java.time.Duration;

/**
 * How long tests wait, sized for a loaded machine: the suite must pass on 2 cores at a load of 20, where
 * everything runs about ten times slower than on a quiet machine. A ceiling costs time only when a test fails.
 */
public final class Waits {

    /**
     * The ceiling of a wait on state (a scale, a status, an event, a sync, a process that ends): what a quiet
     * machine does in seconds.
     */
    public static final Duration STATE = Duration.ofMinutes(5);

    private Waits() {
    }

    /**
     * Leader election that a loaded machine does not lose: renewals every 2 s may fail for a minute before the
     * lease is lost (which stops the workers, and every wait on them). A test about losing the lease sizes its own.
     */
    public static LeaseSettings steadyLease(String namespace, String name, String identity) {
        return new LeaseSettings(namespace, name, identity, Duration.ofSeconds(90), Duration.ofSeconds(60), Duration.ofSeconds(2));
    }
}
