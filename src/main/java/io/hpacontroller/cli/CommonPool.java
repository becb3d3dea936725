package io.hpacontroller.cli;

import java.util.Properties;

/**
 * A common ForkJoinPool of at least two threads. The JDK's HTTP client hands each {@code sendAsync}'s answer on
 * through CompletableFuture's default executor ({@code HttpClientImpl.sendAsync}: {@code whenCompleteAsync} on
 * {@code ASYNC_POOL}, because fabric8 gives the client an executor of its own). With two processors or fewer (a pod
 * limited to 2 CPUs, or this 2-core machine) the common pool's parallelism is 1, and CompletableFuture then starts
 * a new thread for every such task ({@code ThreadPerTaskExecutor}): one thread per request, 68 a second at 1,000 HPAs
 * (JFR's {@code jdk.ThreadStart}, docs/benchmarks.md "Cheaper than upstream"). With a parallelism of 2 the common
 * pool keeps its threads. A parallelism given to the JVM is left as it is.
 */
final class CommonPool {

    static final String PROPERTY = "java.util.concurrent.ForkJoinPool.common.parallelism";

    private CommonPool() {
    }

    /** Before anything uses the common pool (CompletableFuture reads its parallelism once, when it is loaded). */
    static void atLeastTwo(Properties system, int processors) {
        if (system.getProperty(PROPERTY) == null && processors - 1 < 2) {
            system.setProperty(PROPERTY, "2");
        }
    }
}
