package io.hpacontroller.api;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** --kube-api-qps and --kube-api-burst as client-go's token bucket: burst requests at once, then one per 1/qps second. */
class RequestRateLimiterTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void aFullBucketLetsBurstRequestsGoThenOnePerPeriodAndAQuietTimeRefillsItToBurstOnly() throws Exception {
        AtomicLong clock = new AtomicLong(1_000 * MS);
        List<Long> waits = new ArrayList<>();
        RequestRateLimiter limiter = new RequestRateLimiter(20, 3, clock::get, n -> {
            waits.add(n / MS);
            clock.addAndGet(n);
        });
        for (int i = 0; i < 5; i++) {
            limiter.acquire();
        }
        assertThat(waits).as("3 at once, then one each 50 ms").containsExactly(50L, 50L);

        waits.clear();
        clock.addAndGet(10_000 * MS); // a long quiet time saves up burst tokens, not more
        for (int i = 0; i < 4; i++) {
            limiter.acquire();
        }
        assertThat(waits).containsExactly(50L);

        assertThat(limiter.reserve()).as("right after the wait: the next waits one more period").isEqualTo(50 * MS);
    }

    /** The limiter run's client carries: every request takes a token before it is sent. */
    @Test
    void theClientOfRunWaitsForATokenBeforeEachRequest(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (io.hpacontroller.testing.MockCluster cluster = io.hpacontroller.testing.MockCluster.start()) {
            AtomicLong clock = new AtomicLong();
            List<Long> waits = new ArrayList<>();
            RequestRateLimiter limiter = new RequestRateLimiter(2, 1, clock::get, n -> {
                waits.add(n / MS);
                clock.addAndGet(n);
            });
            java.nio.file.Path kubeconfig = cluster.writeKubeconfig(dir.resolve("config"), "demo");
            try (var client = io.hpacontroller.cli.KubeConnection.resolve(kubeconfig, null).connect(java.time.Duration.ofSeconds(10), 4, limiter)) {
                for (int i = 0; i < 3; i++) {
                    client.pods().inNamespace("demo").list();
                }
            }
            assertThat(waits).as("burst 1 at 2 qps: the 2nd and 3rd request wait 500 ms each").containsExactly(500L, 500L);
        }
    }

    @Test
    void qpsAndBurstMustBePositive() {
        assertThatThrownBy(() -> RequestRateLimiter.of(0, 30)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RequestRateLimiter.of(20, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** The flags as client-go reads a rest.Config: negative is no limit, 0 its defaults (5 qps, a burst of 10). */
    @Test
    void theFlagsReadAsClientGoReadsThem() {
        assertThat(RequestRateLimiter.ofFlags(-1, 30)).isNull();
        RequestRateLimiter defaults = RequestRateLimiter.ofFlags(0, 0);
        assertThat(defaults).isNotNull();
        for (int i = 0; i < 10; i++) {
            assertThat(defaults.reserve()).as("request %d of client-go's burst of 10", i + 1).isZero();
        }
        assertThat(defaults.reserve()).as("the 11th waits for a token at client-go's 5 qps").isPositive().isLessThanOrEqualTo(200 * MS);
    }
}
