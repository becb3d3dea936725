package io.hpacontroller.api;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waits for a state of this process's own caches (informers that have listed, pods gone from a cache) by reading it
 * every 20 ms, up to a ceiling. A wait on the API server goes through a watch instead.
 */
public final class Poll {

    private static final long EVERY_MILLIS = 20;

    private Poll() {
    }

    /** Whether {@code done} held within {@code timeout}. */
    public static boolean until(BooleanSupplier done, Duration timeout) throws InterruptedException {
        return until(done::getAsBoolean, Boolean::booleanValue, timeout);
    }

    /** Reads until what was read passes {@code done} or {@code timeout} has passed; returns what was read last. */
    public static <T> T until(Supplier<T> read, Predicate<T> done, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        T value = read.get();
        while (!done.test(value) && System.nanoTime() < deadline) {
            Thread.sleep(EVERY_MILLIS);
            value = read.get();
        }
        return value;
    }
}
