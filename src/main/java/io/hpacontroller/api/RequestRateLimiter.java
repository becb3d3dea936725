package io.hpacontroller.api;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The client's request rate limit of {@code --kube-api-qps} and {@code --kube-api-burst}, as client-go's
 * {@code flowcontrol.NewTokenBucketRateLimiter(qps, burst)} that kube-controller-manager puts on its clients: a bucket
 * of {@code burst} tokens, refilled at {@code qps} per second, starting full; each request takes one, waiting for it
 * when the bucket is empty. A fabric8 interceptor: the wait happens before the request is sent, on the thread that
 * sends it, as client-go's {@code Wait} in {@code request.tryThrottle}. fabric8 has no limiter of its own; ours is
 * small and keeps client-go's semantics (golang.org/x/time/rate's reservation order: first come, first served).
 */
public final class RequestRateLimiter implements Interceptor {

    /** client-go's defaults for a QPS or burst of 0 (rest.DefaultQPS, rest.DefaultBurst). */
    static final float CLIENT_GO_QPS = 5;
    static final int CLIENT_GO_BURST = 10;

    private final long period;
    private final int burst;
    private final LongSupplier nanos;
    private final Sleeper sleeper;
    /**
     * The theoretical arrival time of the next request (GCRA, the token bucket's equivalent): a request may go when it is at
     * most burst - 1 periods ahead of now; each request moves it one period on; a quiet time brings it back to now, not before.
     */
    private long next;

    /** How the caller waits; the tests' clock moves instead. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }

    /**
     * @param qps   requests per second, more than 0
     * @param burst the most requests sent at once after a quiet time, at least 1
     */
    public RequestRateLimiter(double qps, int burst, LongSupplier nanos, Sleeper sleeper) {
        if (!(qps > 0) || Double.isInfinite(qps) || burst < 1) {
            throw new IllegalArgumentException("a rate limit needs qps > 0 and burst >= 1, got qps " + qps + ", burst " + burst);
        }
        this.period = Math.max(1, (long) (TimeUnit.SECONDS.toNanos(1) / qps));
        this.burst = burst;
        this.nanos = nanos;
        this.sleeper = sleeper;
        this.next = nanos.getAsLong();
    }

    /**
     * The limiter of {@code --kube-api-qps} and {@code --kube-api-burst} as client-go reads a rest.Config: a negative QPS
     * is no limit (null), 0 is client-go's default of 5 (a burst of 0 its 10).
     */
    public static RequestRateLimiter ofFlags(float qps, int burst) {
        if (qps < 0) {
            return null;
        }
        return of(qps == 0 ? CLIENT_GO_QPS : qps, burst == 0 ? CLIENT_GO_BURST : burst);
    }

    public static RequestRateLimiter of(double qps, int burst) {
        return new RequestRateLimiter(qps, burst, System::nanoTime, n -> TimeUnit.NANOSECONDS.sleep(n));
    }

    /** Takes a token: returns at once while the bucket has one, else after the wait for the next. */
    public void acquire() throws InterruptedException {
        long wait = reserve();
        if (wait > 0) {
            sleeper.sleep(wait);
        }
    }

    /** Reserves the next token, returning how long to wait for it (0: now). */
    synchronized long reserve() {
        long now = nanos.getAsLong();
        if (next - now < 0) {
            next = now;
        }
        long wait = next - now - (burst - 1) * period;
        next += period;
        return Math.max(0, wait);
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        try {
            acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
