package io.hpacontroller.api;

import io.hpacontroller.core.port.ApiException;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Whether this instance may write to the cluster (scale, status, events), asked right before every
 * write. With leader election a write may start only while this instance holds a fresh lease: its last
 * successful renewal is younger than the renew deadline. Each write is then bounded by
 * {@link #writeTimeout}, which fits in what is left of the lease (lease duration minus renew deadline):
 * a write that started in time is done or abandoned before another instance can have taken over.
 * {@link #close} stops every write for good (shutdown). It counts the writes refused as stale: refused here because
 * the lease was not fresh, and refused by the cluster because a fencing token (the kept history's resourceVersion)
 * had moved on ({@link #fenced}).
 */
public final class WriteGate {

    private final BooleanSupplier lease;
    private final Duration writeTimeout;
    private volatile boolean closed;
    private final LongAdder refusedOnLease = new LongAdder();
    private final LongAdder fenced = new LongAdder();

    private WriteGate(BooleanSupplier lease, Duration writeTimeout) {
        this.lease = Objects.requireNonNull(lease);
        this.writeTimeout = writeTimeout;
    }

    /** A gate that is open until closed (no leader election). */
    public static WriteGate alwaysOpen() {
        return new WriteGate(() -> true, null);
    }

    /**
     * A gate open while {@code freshLease} says this instance holds a fresh lease.
     *
     * @param writeTimeout the longest one write may take (timeout of the request, {@link KubeApi#GRACE} included)
     */
    public static WriteGate whileLeading(BooleanSupplier freshLease, Duration writeTimeout) {
        if (writeTimeout.compareTo(KubeApi.GRACE) <= 0) {
            throw new IllegalArgumentException("a write needs more than " + KubeApi.GRACE.toMillis() + " ms, got " + writeTimeout.toMillis() + " ms");
        }
        return new WriteGate(freshLease, writeTimeout);
    }

    /** Closes the gate for good. */
    public void close() {
        closed = true;
    }

    public boolean isOpen() {
        return !closed && lease.getAsBoolean();
    }

    /** Throws when a write may not start now. */
    public void check() throws ApiException {
        if (closed) {
            throw new ApiException("this instance is shutting down: writes are stopped");
        }
        if (!lease.getAsBoolean()) {
            refusedOnLease.increment();
            throw new ApiException("this instance does not hold a fresh leader lease: writes are stopped");
        }
    }

    /** A write the cluster refused (409) because it was computed from a stale copy of a fencing token: counted. */
    public void fenced() {
        fenced.increment();
    }

    /** Writes refused here because this instance's lease was not fresh (not counted: those refused at shutdown). */
    public long refusedOnLease() {
        return refusedOnLease.sum();
    }

    /** Writes the cluster refused as stale ({@link #fenced}). */
    public long refusedAsFenced() {
        return fenced.sum();
    }

    /** The request timeout for writes: the API timeout, shortened so that a write cannot outlast the lease. */
    public Duration requestTimeout(Duration apiTimeout) {
        if (writeTimeout == null) {
            return apiTimeout;
        }
        Duration fits = writeTimeout.minus(KubeApi.GRACE);
        return fits.compareTo(apiTimeout) < 0 ? fits : apiTimeout;
    }
}
