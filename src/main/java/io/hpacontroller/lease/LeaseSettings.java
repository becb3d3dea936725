package io.hpacontroller.lease;

import io.hpacontroller.api.KubeApi;

import java.time.Duration;
import java.util.Objects;

/**
 * A Lease this replica holds and renews, with kube-controller-manager's flags ({@code --leader-elect-*}; defaults 15 s
 * lease, 10 s renew deadline, 2 s retry) and their rules: the leader election's Lease, and with {@code --sharding} the
 * members' Leases, which take its name as their prefix and label value.
 *
 * @param namespace where the Lease is
 * @param name      the Lease's name ({@code --leader-elect-resource-name})
 * @param identity  this replica, the holder
 */
public record LeaseSettings(String namespace, String name, String identity, Duration leaseDuration, Duration renewDeadline,
                            Duration retryPeriod) {

    public LeaseSettings {
        Objects.requireNonNull(identity);
        if (!(leaseDuration.compareTo(renewDeadline) > 0)) {
            throw new IllegalArgumentException("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
        }
        if (!(renewDeadline.compareTo(retryPeriod) > 0)) {
            throw new IllegalArgumentException("--leader-elect-renew-deadline must be greater than --leader-elect-retry-period");
        }
        if (leaseDuration.minus(renewDeadline).compareTo(KubeApi.GRACE) <= 0) {
            throw new IllegalArgumentException("--leader-elect-lease-duration must exceed --leader-elect-renew-deadline by more than "
                    + KubeApi.GRACE.toSeconds() + "s: that difference is the time one write may take, so that it cannot land after "
                    + "another instance took over");
        }
    }

    /**
     * The longest one write may take: a write starts only within the renew deadline after a renewal, and must be done
     * before another instance may count the Lease expired, a lease duration after it.
     */
    public Duration writeTimeout() {
        return leaseDuration.minus(renewDeadline);
    }
}
