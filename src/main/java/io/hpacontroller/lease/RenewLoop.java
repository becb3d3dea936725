package io.hpacontroller.lease;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Runs a Lease's step every retry period on a daemon thread of its own, until the step says it is over or it is stopped. */
public final class RenewLoop {

    private final Thread thread;
    private volatile boolean stopped;

    private RenewLoop(String name, Duration period, BooleanSupplier step) {
        thread = new Thread(() -> {
            while (!stopped && step.getAsBoolean()) {
                try {
                    Thread.sleep(period.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, name);
        thread.setDaemon(true);
    }

    /** @param step one period's work; returns whether to go on */
    public static RenewLoop start(String name, Duration period, BooleanSupplier step) {
        RenewLoop loop = new RenewLoop(name, period, step);
        loop.thread.start();
        return loop;
    }

    /** Stops it: a step under way is interrupted, and waited for up to {@code wait}. */
    public void stop(Duration wait) {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
